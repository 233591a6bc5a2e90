"""The real agent CLIs, offline, for `funes ask` tests: a scripted model on loopback, a fresh HOME.

Each agent is configured the way a user would have it (model provider pointing at the scripted
model) plus things `funes ask` must switch off for its run: a funes MCP server (the agent kit's
stand-in with a `recall` tool), a hook that logs when it fires, and for pi an extension that
registers a `funes_recall` tool. The scripted model calls any offered tool named like `recall`, so
a leak shows up both in the request log and in the answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
KIT = SHARED / "agent-kit"
CLIENTS = Path(os.environ.get("AGENT_CLIENTS", "/tmp/agent-clients"))
AGENT_BINARIES = {
    "claude": CLIENTS / "claude/node_modules/.bin/claude",
    "codex": CLIENTS / "codex/node_modules/.bin/codex",
    "pi": CLIENTS / "pi/node_modules/.bin/pi",
    "hermes": CLIENTS / "hermes/bin/hermes",
    "qwen": CLIENTS / "qwen/node_modules/.bin/qwen",
    "gemini": CLIENTS / "gemini/node_modules/.bin/gemini",
    "opencode": CLIENTS / "opencode/node_modules/.bin/opencode",
    "copilot": CLIENTS / "copilot/node_modules/.bin/copilot",
}
MCP_PYTHON = CLIENTS / "venv/bin/python"
MODEL_STUB = Path(__file__).with_name("ask_model_stub.py")


def require_agent(agent: str) -> Path:
    """The agent's binary; a missing agent skips the test, or fails it on CI."""
    binary = AGENT_BINARIES[agent]
    if not binary.exists():
        message = f"{agent} is not installed under {CLIENTS} (agent-kit/install-clients.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


@dataclass
class ScriptedModel:
    port: int
    requests_log: Path
    replies_log: Path

    def requests(self) -> list[dict]:
        if not self.requests_log.exists():
            return []
        return [json.loads(line) for line in self.requests_log.read_text().splitlines()]

    def model_requests(self) -> list[dict]:
        """Requests that asked the model for a reply (not metadata probes)."""
        return [r for r in self.requests() if isinstance(r.get("body"), dict) and r["body"]]

    def replies(self) -> list[str]:
        if not self.replies_log.exists():
            return []
        return [json.loads(line)["reply"] for line in self.replies_log.read_text().splitlines()]


@contextlib.contextmanager
def running_scripted_model(work: Path) -> Iterator[ScriptedModel]:
    """The scripted model on a free loopback port, logging into `work`, for the block's duration."""
    work.mkdir(parents=True)
    port_file = work / "port"
    model = ScriptedModel(0, work / "requests.jsonl", work / "replies.jsonl")
    env = {**os.environ, "STUB_REPLY_LOG": str(model.replies_log)}
    process = subprocess.Popen(
        [
            sys.executable,
            str(MODEL_STUB),
            *("--port", "0", "--port-file", str(port_file)),
            *("--log", str(model.requests_log), "--max-seconds", "300"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(work / "stub.err").open("w"),
    )
    deadline = time.monotonic() + 10
    while not port_file.exists():
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            pytest.fail(f"scripted model did not start: {(work / 'stub.err').read_text()}")
        time.sleep(0.05)
    model.port = int(port_file.read_text())
    try:
        yield model
    finally:
        process.kill()
        process.wait()


@dataclass
class AgentHome:
    agent: str
    home: Path
    hook_log: Path
    mcp_log: Path


def setup_agent(
    agent: str, tmp_path: Path, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> AgentHome:
    """A fresh HOME where `agent` talks to `model`, with funes MCP, a hook and PATH set up."""
    binary = require_agent(agent)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / binary.name).symlink_to(binary)
    state = AgentHome(agent, home, tmp_path / "hook.log", tmp_path / "mcp_calls.log")
    hook = f"{KIT / 'hooks' / 'log_hook.py'} fired"
    mcp = {"command": str(MCP_PYTHON), "args": [str(KIT / "mcp" / "funes_mcp.py")]}
    # Every agent's home follows HOME (Claude Code also reads $XDG_CONFIG_HOME/claude).
    for name in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "PI_CODING_AGENT_DIR",
        "HERMES_HOME",
        "GEMINI_CLI_HOME",
        "QWEN_HOME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "COPILOT_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/local/bin:/usr/bin:/bin")
    monkeypatch.setenv("HOOK_LOG", str(state.hook_log))
    monkeypatch.setenv("FUNES_MCP_LOG", str(state.mcp_log))
    base = f"http://127.0.0.1:{model.port}"
    if agent == "claude":
        for key, value in {
            "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "ENABLE_TOOL_SEARCH": "false",  # a leaked MCP tool would be listed, not deferred
        }.items():
            monkeypatch.setenv(key, value)
        (home / ".claude.json").write_text(
            json.dumps({"mcpServers": {"funes": {"type": "stdio", **mcp, "env": {}}}})
        )
        (home / ".claude").mkdir()
        stop_hook = {"hooks": [{"type": "command", "command": hook}]}
        settings = {"hooks": {"Stop": [stop_hook]}}
        (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    elif agent == "codex":
        codex_home = home / ".codex"
        codex_home.mkdir()
        monkeypatch.setenv("STUB_API_KEY", "dummy")
        (codex_home / "config.toml").write_text(
            f'model = "stub-model"\nmodel_provider = "stub"\n'
            f'notify = ["{KIT / "hooks" / "log_hook.py"}", "notify"]\n'
            f"mcp_optional_startup_grace_ms = 15000\n\n"
            f'[model_providers.stub]\nname = "Stub"\nbase_url = "{base}/v1"\n'
            f'wire_api = "responses"\nenv_key = "STUB_API_KEY"\n\n'
            f'[mcp_servers.funes]\ncommand = "{mcp["command"]}"\nargs = {json.dumps(mcp["args"])}\n'
            f'default_tools_approval_mode = "approve"\n'
        )
        stop_hook = {"hooks": [{"type": "command", "command": hook}]}
        (codex_home / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [stop_hook]}}))
    elif agent == "pi":
        monkeypatch.setenv("PI_OFFLINE", "1")
        monkeypatch.setenv("PI_SKIP_VERSION_CHECK", "1")
        monkeypatch.setenv("PI_TELEMETRY", "0")
        monkeypatch.setenv("PI_HOOK_LOG", str(state.hook_log))
        agent_dir = home / ".pi" / "agent"
        (agent_dir / "extensions").mkdir(parents=True)
        (agent_dir / "extensions" / "funes-test.ts").write_text(
            (KIT / "pi-ext" / "funes-test.ts").read_text()
        )
        (agent_dir / "models.json").write_text(
            json.dumps(
                {
                    "providers": {
                        "stub": {
                            "baseUrl": f"{base}/v1",
                            "api": "openai-completions",
                            "apiKey": "dummy",
                            "compat": {
                                "supportsDeveloperRole": False,
                                "supportsReasoningEffort": False,
                            },
                            "models": [
                                {
                                    "id": "stub-model",
                                    "name": "Stub",
                                    "reasoning": False,
                                    "input": ["text"],
                                    "contextWindow": 128000,
                                    "maxTokens": 4096,
                                }
                            ],
                        }
                    }
                }
            )
        )
        (agent_dir / "settings.json").write_text(
            json.dumps({"defaultProvider": "stub", "defaultModel": "stub-model"})
        )
    elif agent == "hermes":
        hermes_home = home / ".hermes"
        hermes_home.mkdir()
        (hermes_home / "config.yaml").write_text(
            f"model:\n  provider: custom\n  base_url: {base}/v1\n  default: stub-model\n"
            f"  api_key: dummy\n  context_length: 128000\n"
            f"security:\n  allow_lazy_installs: false\n  tirith_enabled: false\n"
            f"hooks_auto_accept: true\n"
            f'hooks:\n  on_session_start:\n    - command: "{hook}"\n'
            f"mcp_servers:\n  funes:\n    command: {mcp['command']}\n"
            f"    args: [{mcp['args'][0]}]\n    enabled: true\n"
        )
    elif agent == "gemini":
        for key, value in {
            "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": base,
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }.items():
            monkeypatch.setenv(key, value)
        (home / ".gemini").mkdir()
        group = {"hooks": [{"type": "command", "command": hook}]}
        settings = {
            "security": {
                "auth": {"selectedType": "gemini-api-key"},
                "folderTrust": {"enabled": False},
            },
            "model": {"name": "gemini-2.5-flash"},
            "mcpServers": {"funes": {**mcp, "trust": True}},
            "hooks": {"BeforeAgent": [group], "AfterAgent": [group]},
        }
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    elif agent == "qwen":
        for key, value in {
            "OPENAI_API_KEY": "dummy",
            "OPENAI_BASE_URL": f"{base}/v1",
            "OPENAI_MODEL": "stub-model",
            "QWEN_CODE_NO_RELAUNCH": "true",
        }.items():
            monkeypatch.setenv(key, value)
        (home / ".qwen").mkdir()
        group = {"matcher": "", "hooks": [{"type": "command", "command": hook}]}
        settings = {
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
            "model": {"name": "stub-model"},
            "mcpServers": {"funes": {**mcp, "trust": True}},
            "hooks": {"UserPromptSubmit": [group], "Stop": [group]},
            "$version": 4,
        }
        (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
    elif agent == "opencode":
        _setup_opencode(home, base, mcp, monkeypatch)
    elif agent == "copilot":
        _setup_copilot(home, base, mcp, hook, monkeypatch)
    return state


def _setup_opencode(home: Path, base: str, mcp: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """opencode with the stub as provider, the kit's stand-in MCP server, and the kit's plugin
    (a `funes_plugin_recall` tool and a session.idle hook that logs to $HOOK_LOG)."""
    import shutil

    for key, value in {
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("FUNES_HOOK_CMD", raising=False)
    config_dir = home / ".config" / "opencode"
    (config_dir / "plugin").mkdir(parents=True)
    seed = CLIENTS / "opencode-seed"  # else opencode npm-installs its plugin package offline
    if (seed / "node_modules").is_dir():
        shutil.copytree(seed, config_dir, dirs_exist_ok=True)
    (config_dir / "plugin" / "funes-test.js").write_text(
        (KIT / "opencode-plugin" / "funes-test.js").read_text()
    )
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "options": {"baseURL": f"{base}/v1", "apiKey": "dummy"},
        "models": {"stub-model": {"name": "Stub"}},
    }
    server = {"type": "local", "command": [mcp["command"], *mcp["args"]]}
    (config_dir / "opencode.json").write_text(
        json.dumps(
            {
                "autoupdate": False,
                "share": "disabled",
                "provider": {"stub": provider},
                "model": "stub/stub-model",
                "mcp": {"funes": server},
            }
        )
    )


def _setup_copilot(
    home: Path, base: str, mcp: dict, hook: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copilot CLI on the stub (BYOK, offline), the stand-in MCP server as `copilot mcp add`
    writes it, and an agentStop hook that logs to $HOOK_LOG."""
    for key, value in {
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_PROVIDER_BASE_URL": f"{base}/v1",
        "COPILOT_MODEL": "stub-model",
    }.items():
        monkeypatch.setenv(key, value)
    for key in ("COPILOT_HOME", "GITHUB_TOKEN", "GH_TOKEN", "COPILOT_GITHUB_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    runtime = CLIENTS / "copilot-cache" / "pkg"  # unpacked once by the agent kit
    if runtime.is_dir():
        (home / ".cache" / "copilot").mkdir(parents=True)
        (home / ".cache" / "copilot" / "pkg").symlink_to(runtime)
    copilot = home / ".copilot"
    copilot.mkdir()
    server = {"type": "local", "tools": ["*"], **mcp}
    (copilot / "mcp-config.json").write_text(json.dumps({"mcpServers": {"funes": server}}))
    stop = [{"type": "command", "bash": hook, "timeoutSec": 30}]
    (copilot / "settings.json").write_text(json.dumps({"hooks": {"agentStop": stop}}))


def offered_tool_names(request: dict) -> list[str]:
    """Every tool name a model request offers, whatever the wire protocol."""
    names = []
    for tool in (request.get("body") or {}).get("tools") or []:
        function = tool.get("function") or tool
        if "name" in function:
            names.append(function["name"])
        names.extend(sub.get("name", "") for sub in tool.get("functionDeclarations") or [])
        names.extend(sub.get("name", "") for sub in tool.get("tools") or [])
    return names


def request_text(request: dict) -> str:
    return json.dumps(request.get("body") or {})

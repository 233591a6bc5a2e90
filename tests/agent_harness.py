"""Run the real agent programs against the scripted model, for `@pytest.mark.agents` tests.

Generic over agents: a fresh `$HOME` and `$FUNES_HOME` per test, the stub model
(`agent-kit/stub/stub_llm.py`) on a free 127.0.0.1 port, the agent's binary from
`$AGENT_CLIENTS` (default /tmp/agent-clients), the `funes` of this checkout first on PATH, and a
bounded poll for the detached hook worker. On CI (`CI=true`) a missing agent fails the test
instead of skipping it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

AGENT_CLIENTS = Path(os.environ.get("AGENT_CLIENTS", "/tmp/agent-clients"))
AGENT_KIT = Path(os.environ.get("AGENT_KIT", "/work/shared/agent-kit"))
STUB_SCRIPT = AGENT_KIT / "stub" / "stub_llm.py"
FUNES_BIN = Path(sys.executable).with_name("funes")

_BINARIES = {
    "claude": "claude/node_modules/.bin/claude",
    "codex": "codex/node_modules/.bin/codex",
    "pi": "pi/node_modules/.bin/pi",
    "hermes": "hermes/bin/hermes",
    "gemini": "gemini/node_modules/.bin/gemini",
    "qwen": "qwen/node_modules/.bin/qwen",
    "opencode": "opencode/node_modules/.bin/opencode",
    "copilot": "copilot/node_modules/.bin/copilot",
}

T = TypeVar("T")

# Every real-agent test: `-m "not agents"` leaves them out, and they are slow.
AGENT_MARKS = [pytest.mark.agents, pytest.mark.slow]


def agent_binary(agent: str) -> Path | None:
    path = AGENT_CLIENTS / _BINARIES[agent]
    return path if path.exists() else None


def require_agent(agent: str) -> Path:
    """The agent's executable; skip the test when it is not installed (fail on CI)."""
    path = agent_binary(agent)
    if path is not None and STUB_SCRIPT.exists():
        return path
    why = f"{agent} is not installed under {AGENT_CLIENTS} (agent-kit/install-clients.sh)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(why)
    pytest.skip(why)
    raise AssertionError("unreachable")


@dataclass
class AgentEnv:
    """A sandbox: fresh HOME (with a project dir `proj`), FUNES_HOME, and the env to run in."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        return Path(self.env["HOME"])

    @property
    def funes_home(self) -> Path:
        return Path(self.env["FUNES_HOME"])

    @property
    def project(self) -> Path:
        return self.home / "proj"

    def run(
        self,
        argv: list[str | Path],
        *,
        timeout: float = 120,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        **kw: Any,
    ) -> subprocess.CompletedProcess[str]:
        """Run `argv` in the sandbox (or in `env`); output captured as text; never raises on a
        non-zero exit."""
        return subprocess.run(
            [str(a) for a in argv],
            env=env if env is not None else self.env,
            cwd=cwd or self.project,
            capture_output=True,
            text=True,
            timeout=timeout,
            **kw,
        )

    def funes(
        self, *args: str, timeout: float = 300, **kw: Any
    ) -> subprocess.CompletedProcess[str]:
        return self.run([FUNES_BIN, *args], timeout=timeout, **kw)

    def funes_ok(self, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        """`funes ARGS`, asserted to succeed (its stderr shown when it does not)."""
        done = self.funes(*args, **kw)
        assert done.returncode == 0, done.stderr
        return done

    def recall_once_indexed(self, marker: str, *options: str, naming: str, **wait: float) -> str:
        """What `funes recall OPTIONS -- MARKER` prints once the hook worker is done (waited for
        `wait`) and the recall names `naming` (the new session; the agent format shows its first
        8 characters): the proof a hook indexed it."""
        wait_for_hook_worker(self.funes_home, **wait)
        shown = naming if "--json" in options else naming[:8]

        def recalled() -> str:
            found = self.funes("recall", *options, "--", marker)
            return found.stdout if found.returncode == 0 and shown in found.stdout else ""

        return wait_for(recalled, 60)

    def add(self, agent: str) -> dict[str, Any]:
        """`funes add AGENT --yes --json`, asserted to succeed: what it indexed and changed."""
        report: dict[str, Any] = json.loads(self.funes_ok("add", agent, "--yes", "--json").stdout)
        return report

    def worker_log(self) -> str:
        """What the detached hook worker logged: which agent's hook queued what."""
        return (self.funes_home / "logs" / "worker.log").read_text()

    def user_file(self, relative: str, text: str) -> Path:
        """`text` written to HOME/`relative` (its folders made): a file as the user left it."""
        path = self.home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def index_claude_session(
        self, claude_dir: Path, cwd: Path, session_id: str, turns: list[tuple[str, str]]
    ) -> Path:
        """A past Claude Code session (`write_claude_transcript`), indexed: what a recall of
        the agent under test is to find."""
        seed = write_claude_transcript(claude_dir, cwd, session_id, turns)
        self.funes_ok("index", str(seed))
        return seed

    def doctor_checks(self, agent: str, *options: str) -> dict[str, dict[str, Any]]:
        """`funes doctor --json OPTIONS`'s checks of `agent`, by name."""
        doctor = json.loads(self.funes("doctor", "--json", *options).stdout)
        return {c["name"]: c for c in doctor["checks"] if c["name"].startswith(f"{agent}:")}


def agent_sandbox(root: Path, agent: str, **extra: str) -> tuple[Path, AgentEnv]:
    """The agent's executable (skip the test when it is missing) and a fresh sandbox for it."""
    return require_agent(agent), make_agent_env(root, agent, **extra)


def make_agent_env(root: Path, agent: str | None = None, **extra: str) -> AgentEnv:
    """A fresh sandbox under `root`; PATH puts this checkout's funes and `agent` first."""
    home = root / "home"
    (home / "proj").mkdir(parents=True, exist_ok=True)
    funes_home = root / "funes-home"
    funes_home.mkdir(parents=True, exist_ok=True)
    path_dirs = [str(FUNES_BIN.parent)]
    if agent is not None and (binary := agent_binary(agent)) is not None:
        path_dirs.append(str(binary.parent))
    path_dirs.append(os.environ.get("PATH", "/usr/bin:/bin"))
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(
            (
                "CLAUDE",
                "CODEX",
                "PI_",
                "HERMES",
                "ANTHROPIC",
                "OPENAI",
                "GEMINI",
                "GOOGLE",
                "QWEN",
                "XDG_",
                "OPENCODE",
                "COPILOT",
            )
        )
    }
    env.update(
        HOME=str(home),
        FUNES_HOME=str(funes_home),
        FUNES_BIN=str(FUNES_BIN),
        PATH=os.pathsep.join(path_dirs),
        HF_HUB_OFFLINE="1",
        LANCEDB_LOG="error",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        PI_OFFLINE="1",
        HERMES_DISABLE_LAZY_INSTALLS="1",
    )
    env.update(extra)
    return AgentEnv(root=root, env=env)


@dataclass
class StubModel:
    """The scripted model server; `requests()` is what the agent sent it, in order."""

    port: int
    log: Path
    process: subprocess.Popen[bytes]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def tool_results(self) -> list[str]:
        """Text of every tool result the agent sent back to the model (any wire protocol)."""
        found: list[str] = []
        for request in self.requests():
            body = request.get("body")
            if isinstance(body, dict):
                _collect_tool_results(body, found)
        return list(dict.fromkeys(found))

    def passage(self, needle: str) -> str:
        """The first tool result the agent sent back that holds `needle` (asserted to exist)."""
        results = [text for text in self.tool_results() if needle in text]
        assert results, self.tool_results()
        return results[0]

    def offered_tools(self) -> set[str]:
        """The names of every tool the agent offered the model (OpenAI wire shapes)."""
        return {
            (tool.get("function") or tool).get("name")
            for request in self.requests()
            for tool in (request.get("body") or {}).get("tools") or []
        }


def _collect_tool_results(node: Any, found: list[str]) -> None:
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "tool_result":  # Anthropic Messages
            found.append(_text_of(node.get("content")))
        elif kind == "function_call_output":  # OpenAI Responses
            found.append(_text_of(node.get("output")))
        elif node.get("role") == "tool":  # OpenAI Chat Completions
            found.append(_text_of(node.get("content")))
        elif isinstance(node.get("functionResponse"), dict):  # Gemini
            found.append(_text_of(node["functionResponse"].get("response")))
        for value in node.values():
            _collect_tool_results(value, found)
    elif isinstance(node, list):
        for item in node:
            _collect_tool_results(item, found)


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value)
    if isinstance(value, dict):
        for key in ("text", "content", "output"):
            if key in value:
                return _text_of(value[key])
    return ""


@contextmanager
def stub_model(
    workdir: Path,
    *,
    tool_re: str = "recall",
    tool_args: dict[str, Any] | None = None,
    max_seconds: int = 300,
) -> Iterator[StubModel]:
    """Start stub_llm.py on a free loopback port for the duration of the block."""
    workdir.mkdir(parents=True, exist_ok=True)
    port_file, log = workdir / "stub.port", workdir / "stub-requests.jsonl"
    port_file.unlink(missing_ok=True)
    env = {**os.environ, "STUB_TOOL_RE": tool_re}
    if tool_args is not None:
        env["STUB_TOOL_ARGS"] = json.dumps(tool_args)
    argv = [sys.executable, str(STUB_SCRIPT), "--port", "0", "--port-file", str(port_file)]
    argv += ["--log", str(log), "--max-seconds", str(max_seconds)]
    with open(workdir / "stub.out", "wb") as out:
        process = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        port_text = wait_for(lambda: port_file.exists() and port_file.read_text().strip(), 10)
        yield StubModel(port=int(port_text), log=log, process=process)
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()


GET_LINE = re.compile(r"funes get ([\w.:-]+) ([\w.:-]+)")


def run_get_line(env: AgentEnv, passage: str, session: str, holding: str = "") -> str:
    """Run the `funes get` line of a place from `session` as printed (its 8-character session
    prefix and its seq; the passage may be JSON-escaped text) and return what it prints: the
    first place's, or the first whose output holds `holding`."""
    found = [m for m in GET_LINE.finditer(passage) if m.group(1) == session[:8]]
    assert found, f"no get line for {session[:8]} in {passage[:2000]}"
    outputs = [env.funes_ok("get", m.group(1), m.group(2)).stdout for m in found]
    return next((out for out in outputs if holding in out), outputs[0])


def get_line_turn(env: AgentEnv, passage: str, session: str, holding: str) -> str:
    """The turn id (from `--json`) of the first `funes get` line of `session` in `passage`
    whose output holds `holding`: the exact turn a recalled place leads to."""
    for match in GET_LINE.finditer(passage):
        if match.group(1) != session[:8]:
            continue
        if holding in env.funes_ok("get", match.group(1), match.group(2)).stdout:
            got = env.funes_ok("get", match.group(1), match.group(2), "--json").stdout
            return str(json.loads(got)["turn_uuid"])
    raise AssertionError(f"no get line of {session[:8]} leads to {holding!r}")


def hit_header(passage: str, session: str) -> str:
    """The line that names the session of the recalled places from `session` (its `==` line:
    handle, agent, working folder)."""
    return next(line for line in passage.splitlines() if session[:8] in line)


def wait_for(predicate: Callable[[], T], timeout: float, interval: float = 0.2) -> T:
    """Poll `predicate` until it returns something truthy; raise TimeoutError after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"condition not met within {timeout:.0f} s")
        time.sleep(interval)


def wait_for_hook_worker(funes_home: Path, timeout: float = 120) -> None:
    """Wait until the hook queue is drained and no worker holds its lock."""
    import fcntl

    queue = funes_home / "queue"

    def idle() -> bool:
        if list(queue.glob("*.json")):
            return False
        lock = queue / ".worker.lock"
        if not lock.exists():
            return True
        with open(lock, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            fcntl.flock(handle, fcntl.LOCK_UN)
        return True

    wait_for(idle, timeout, interval=0.5)


def write_claude_transcript(
    claude_dir: Path, cwd: Path, session_id: str, turns: list[tuple[str, str]]
) -> Path:
    """A Claude Code transcript of `turns` ((user text, assistant text) pairs) where Claude
    Code (config dir `claude_dir`, e.g. ~/.claude) keeps it for `cwd`: a seeded past session."""
    import uuid as uuidlib

    slug = str(cwd).replace("/", "-")
    path = claude_dir / "projects" / slug / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records, parent = [], None
    for i, (user, assistant) in enumerate(turns):
        for role, text in (("user", user), ("assistant", assistant)):
            uuid = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"{session_id}/{i}/{role}"))
            content: Any = text if role == "user" else [{"type": "text", "text": text}]
            message: dict[str, Any] = {"role": role, "content": content}
            if role == "assistant":
                message |= {"id": f"msg_{uuid}", "type": "message", "model": "claude-test"}
            records.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "type": role,
                    "message": message,
                    "uuid": uuid,
                    "timestamp": f"2026-01-0{1 + i % 9}T10:00:0{i % 10}.000Z",
                    "cwd": str(cwd),
                    "sessionId": session_id,
                    "version": "2.1.197",
                }
            )
            parent = uuid
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# The agent's `funes mcp` a thin client of the memory's resident service, as for a user (the
# tests' default is no service: FUNES_WARM_IDLE_S=0).
RESIDENT = {"FUNES_WARM_IDLE_S": "30"}


def answered_by_resident(funes_home: Path) -> int:
    """Tool calls the resident service answered for an MCP server (one log line each)."""
    log = funes_home / "logs" / "warm.log"
    return log.read_text().count("answered a tool call") if log.is_file() else 0


def stop_resident(funes_home: Path) -> None:
    """End the resident service of `funes_home` (it would exit when idle anyway)."""
    import signal
    import socket
    import struct

    for sock in (funes_home / "run").glob("*.sock"):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(str(sock))
                raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            os.kill(struct.unpack("3i", raw)[0], signal.SIGTERM)
        except OSError:
            continue

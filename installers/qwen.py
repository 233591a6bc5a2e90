"""Qwen Code: the funes MCP server and a per-turn hook in `~/.qwen/settings.json`, and the
`funes-recall` skill in `~/.qwen/skills/funes-recall/`.

Why settings rather than a plugin: Qwen Code loads a Claude-format plugin only by converting a
copy of it (`qwen extensions install`, a conversion that is new and changes between releases;
`extensions link` refuses Claude plugins), while `mcpServers` (what `qwen mcp add` writes) and
`hooks` (Claude Code's event names and nesting) are its documented settings, and user skills its
documented folder. What funes adds:

- `mcpServers.funes`: the absolute funes command, `trust: true` (Qwen Code otherwise asks before
  every call, and `qwen -p` refuses), and a non-default FUNES_HOME in `env`;
- one hook group under `hooks.Stop` (after each turn; its payload names the transcript) and one
  under `hooks.SessionEnd` (a catch-up when an interactive session ends): `funes hook qwen`;
- `skills/funes-recall/SKILL.md`, which tells the model when to recall.

settings.json is rewritten in its own indentation and key order. Remove takes out exactly those
entries; when what is left is what the user had before funes first changed the file, the copy
kept then (`settings.json.funes-backup`) is put back byte for byte. A settings file with
comments (Qwen Code accepts them) is refused: funes could not write it back with them.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from funes.installers import jsonfile
from funes.installers.base import ConfigError, InstallReport, dump_json_like, read_config_text
from funes.installers.commands import (
    hook_shell_command,
    mcp_command,
    runs_funes_hook,
    server_environment,
)
from funes.paths import qwen_home
from funes.plugins import plugin_dir

SERVER = "funes"
HOOK_EVENTS: tuple[str, ...] = ("Stop", "SessionEnd")
SKILL = "funes-recall"
HOOK_TIMEOUT_S = 30
_COMMENT = re.compile(r"^\s*(//|/\*)|,\s*//|[{\[]\s*//")


def settings_path() -> Path:
    return qwen_home() / "settings.json"


def skill_path() -> Path:
    return qwen_home() / "skills" / SKILL / "SKILL.md"


def _unparsed(text: str, error: json.JSONDecodeError) -> tuple[int | None, str]:
    """Qwen Code reads settings with comments: name the first comment when there is one."""
    commented = next(
        (n for n, line in enumerate(text.splitlines(), 1) if _COMMENT.search(line)), None
    )
    if commented is None:
        return jsonfile.not_valid_json(text, error)
    return (
        commented,
        "has comments, which funes cannot keep when it rewrites the file; remove them, "
        "or add the funes entries by hand (see `funes add qwen --help`)",
    )


def _load(path: Path) -> tuple[dict[str, Any], str]:
    """settings.json parsed, and its text; ConfigError (nothing written) when it is not JSON
    or an entry funes edits has a shape funes cannot edit safely."""
    data, text = jsonfile.read_object(path, _unparsed)
    servers = data.get("mcpServers")
    jsonfile.require(path, text, servers, dict, "mcpServers", "mcpServers")
    if isinstance(servers, dict):
        jsonfile.require(path, text, servers.get(SERVER), dict, f"mcpServers.{SERVER}", SERVER)
    hooks = data.get("hooks")
    jsonfile.require(path, text, hooks, dict, "hooks", "hooks")
    for event in HOOK_EVENTS:
        groups = (hooks or {}).get(event)
        line = jsonfile.line_of_key(text, event)
        if groups is not None and not isinstance(groups, list):
            raise ConfigError(path, line, f'"hooks.{event}" is not a list of hook groups')
        for group in groups or []:
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise ConfigError(path, line, f'a "hooks.{event}" group is not {{"hooks": [...]}}')
    return data, text


def _is_ours(handler: Any) -> bool:
    """A hook handler that runs `<funes> hook qwen` (any funes path, FUNES_HOME or not)."""
    return isinstance(handler, dict) and runs_funes_hook(handler.get("command"), "qwen")


def _our_group() -> dict[str, Any]:
    handler = {"type": "command", "command": hook_shell_command("qwen"), "timeout": HOOK_TIMEOUT_S}
    return {"matcher": "", "hooks": [handler]}


def _server(memory: str | None) -> dict[str, Any]:
    command = mcp_command(memory)
    server: dict[str, Any] = {"command": command[0], "args": command[1:], "trust": True}
    if environment := server_environment():
        server["env"] = environment
    return server


def _without_ours(groups: list[Any]) -> list[Any]:
    return [g for g in groups if not any(map(_is_ours, g.get("hooks", [])))]


class QwenInstaller:
    agent = "qwen"

    def check(self) -> None:
        _load(settings_path())
        skill = skill_path()
        text = read_config_text(skill)
        if text and f"name: {SKILL}" not in text:
            raise ConfigError(skill, 1, "a skill of this name exists and was not written by funes")

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        self.check()
        settings = settings_path()
        data, original = _load(settings)
        servers = data.setdefault("mcpServers", {})
        if servers.get(SERVER) != _server(memory):
            servers[SERVER] = _server(memory)
        hooks = data.setdefault("hooks", {})
        for event in HOOK_EVENTS:
            groups = hooks.setdefault(event, [])
            if groups[-1:] != [_our_group()] or len(_without_ours(groups)) != len(groups) - 1:
                hooks[event] = [*_without_ours(groups), _our_group()]
        report.write(settings, dump_json_like(data, original))
        skill = (plugin_dir("qwen") / "skills" / SKILL / "SKILL.md").read_bytes()
        report.write(skill_path(), skill, backup=False)
        report.notes.append(
            "Qwen Code: tools mcp__funes__recall / mcp__funes__get and the funes-recall skill load "
            "in new sessions; each finished turn is indexed by the Stop hook."
        )
        return report

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        self.check()
        settings = settings_path()
        data, original = _load(settings)
        before = json.loads(json.dumps(data))
        servers = data.get("mcpServers")
        if isinstance(servers, dict) and SERVER in servers:
            del servers[SERVER]
            if not servers:
                del data["mcpServers"]
        hooks: dict[str, Any] = data.get("hooks") or {}
        for event in HOOK_EVENTS:
            if event in hooks:
                hooks[event] = _without_ours(hooks[event])
                if not hooks[event]:
                    del hooks[event]
        if "hooks" in data and not hooks:
            del data["hooks"]
        if data != before:
            jsonfile.write_back(report, settings, data, original)
        skill = skill_path()
        if skill.exists():
            shutil.rmtree(skill.parent)
            report.changed.append(skill)
        return report

    def status(self) -> dict[str, object]:
        try:
            data, _ = _load(settings_path())
        except ConfigError as error:
            return error.as_status()
        server = (data.get("mcpServers") or {}).get(SERVER)
        hooked = any(
            _is_ours(handler)
            for group in (data.get("hooks") or {}).get("Stop") or []
            for handler in group.get("hooks", [])
        )
        skill = skill_path().exists()
        files = [str(settings_path())] if server or hooked else []
        return {
            "installed": bool(server) and hooked and skill,
            "mcp_server": bool(server),
            "hook": hooked,
            "skill": skill,
            "files": files + ([str(skill_path())] if skill else []),
            "memory": _memory_of(server),
        }


def _memory_of(server: Any) -> str | None:
    """The memory the configured `funes mcp MEMORY` serves (None: the local one)."""
    args = server.get("args") if isinstance(server, dict) else None
    if not isinstance(args, list) or "mcp" not in args:
        return None
    after = args[args.index("mcp") + 1 :]
    return str(after[0]) if after else None


INSTALLER = QwenInstaller()

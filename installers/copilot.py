"""Wire funes into GitHub Copilot CLI: its MCP config, two command hooks, one instructions file.

Copilot can also load a Claude-format plugin, but only per run (`--plugin-dir`) or installed from
a marketplace into state it rewrites itself; its user config files are what it documents and
keeps across updates. So `funes add copilot` writes, under `$COPILOT_HOME` (~/.copilot):

- `mcp-config.json`: `mcpServers.funes`, the local server `funes mcp [MEMORY]` (tools
  `funes-recall`, `funes-get`), exactly what `copilot mcp add` writes;
- `settings.json`: a command hook `funes hook copilot` under `hooks.agentStop` (after each turn;
  its stdin names the transcript) and `hooks.sessionEnd` (Copilot writes its events file
  asynchronously, so the session's end reads the last lines a turn's hook may have missed);
- `instructions/funes.instructions.md`: when to recall (Copilot reads every
  `~/.copilot/instructions/**/*.instructions.md`).

Both JSON files are rewritten with their own indentation and key order (`installers.jsonfile`);
the user's own servers and hooks are never touched, and `remove` gives back the file as it was.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from funes.installers import jsonfile
from funes.installers.base import ConfigError, InstallReport, dump_json_like
from funes.installers.commands import hook_command, mcp_command, runs_funes_hook, server_environment
from funes.paths import copilot_home

SERVER = "funes"
HOOK_EVENTS = ("agentStop", "sessionEnd")
HOOK_TIMEOUT_S = 30
INSTRUCTIONS = "funes.instructions.md"


def mcp_config_path() -> Path:
    return copilot_home() / "mcp-config.json"


def settings_path() -> Path:
    return copilot_home() / "settings.json"


def instructions_path() -> Path:
    return copilot_home() / "instructions" / INSTRUCTIONS


def _read_mcp_config(path: Path) -> tuple[dict[str, Any], str]:
    data, text = jsonfile.read_object(path)
    servers = data.get("mcpServers")
    jsonfile.require(path, text, servers, dict, "mcpServers", "mcpServers")
    if isinstance(servers, dict):
        jsonfile.require(path, text, servers.get(SERVER), dict, "mcpServers.funes", SERVER)
    return data, text


def _read_settings(path: Path) -> tuple[dict[str, Any], str]:
    data, text = jsonfile.read_object(path)
    hooks = data.get("hooks")
    jsonfile.require(path, text, hooks, dict, "hooks", "hooks")
    for event in HOOK_EVENTS:
        handlers = hooks.get(event) if isinstance(hooks, dict) else None
        jsonfile.require(path, text, handlers, list, f"hooks.{event}", event)
        if any(not isinstance(handler, dict) for handler in handlers or []):
            problem = f'a "hooks.{event}" entry is not an object'
            raise ConfigError(path, jsonfile.line_of_key(text, event), problem)
    return data, text


def _server(memory: str | None) -> dict[str, Any]:
    command = mcp_command(memory)
    server: dict[str, Any] = {
        "type": "local",
        "command": command[0],
        "args": command[1:],
        "tools": ["*"],
    }
    if environment := server_environment():
        server["env"] = environment
    return server


def _our_hook() -> dict[str, Any]:
    command = shlex.join(hook_command("copilot"))
    return {"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT_S}


def _is_our_hook(handler: Any) -> bool:
    """A handler that runs `<funes> hook copilot` (any funes path)."""
    return isinstance(handler, dict) and runs_funes_hook(handler.get("bash"), "copilot")


class CopilotInstaller:
    agent = "copilot"

    def check(self) -> None:
        _read_mcp_config(mcp_config_path())
        _read_settings(settings_path())

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        mcp, mcp_text = _read_mcp_config(mcp_config_path())  # both checked before any write
        settings, settings_text = _read_settings(settings_path())

        before = jsonfile.fingerprint(mcp)
        servers = mcp.setdefault("mcpServers", {})
        if servers.get(SERVER) != _server(memory):
            servers[SERVER] = _server(memory)
        if jsonfile.fingerprint(mcp) != before or not mcp_config_path().exists():
            report.write(mcp_config_path(), dump_json_like(mcp, mcp_text))

        before = jsonfile.fingerprint(settings)
        hooks = settings.setdefault("hooks", {})
        for event in HOOK_EVENTS:
            handlers = hooks.setdefault(event, [])
            if [h for h in handlers if _is_our_hook(h)] != [_our_hook()]:
                hooks[event] = [*(h for h in handlers if not _is_our_hook(h)), _our_hook()]
        if jsonfile.fingerprint(settings) != before:
            report.write(settings_path(), dump_json_like(settings, settings_text))

        from importlib import resources

        text = (resources.files("funes.plugins") / "copilot" / INSTRUCTIONS).read_bytes()
        report.write(instructions_path(), text, backup=False)
        report.notes.append(
            f"Copilot CLI loads the funes MCP server from {mcp_config_path()} (tools funes-recall "
            f"and funes-get), runs `funes hook copilot` after each turn ({settings_path()}) and "
            f"reads when to recall from {instructions_path()}. Restart running Copilot sessions."
        )
        return report

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        mcp, mcp_text = _read_mcp_config(mcp_config_path())
        settings, settings_text = _read_settings(settings_path())
        servers = mcp.get("mcpServers")
        if isinstance(servers, dict) and SERVER in servers:
            del servers[SERVER]
            if not servers:
                del mcp["mcpServers"]
            jsonfile.write_back(report, mcp_config_path(), mcp, mcp_text)
        hooks = settings.get("hooks")
        if isinstance(hooks, dict) and any(map(_is_our_hook, _all_handlers(hooks))):
            for event in HOOK_EVENTS:
                kept = [h for h in hooks.get(event) or [] if not _is_our_hook(h)]
                if kept:
                    hooks[event] = kept
                else:
                    hooks.pop(event, None)
            if not hooks:
                del settings["hooks"]
            jsonfile.write_back(report, settings_path(), settings, settings_text)
        if instructions_path().exists():
            instructions_path().unlink()
            report.changed.append(instructions_path())
            folder = instructions_path().parent
            if not any(folder.iterdir()):
                folder.rmdir()
        return report

    def status(self) -> dict[str, object]:
        try:
            mcp, _ = _read_mcp_config(mcp_config_path())
            settings, _ = _read_settings(settings_path())
        except ConfigError as error:
            return error.as_status()
        server = (mcp.get("mcpServers") or {}).get(SERVER)
        hooks = settings.get("hooks") or {}
        hooked = [e for e in HOOK_EVENTS if any(map(_is_our_hook, hooks.get(e) or []))]
        args = server.get("args") or [] if isinstance(server, dict) else []
        memory = args[args.index("mcp") + 1] if "mcp" in args[:-1] else None
        files = [mcp_config_path(), settings_path(), instructions_path()]
        return {
            "installed": server is not None and hooked == list(HOOK_EVENTS),
            "hooks": hooked,
            "files": [str(path) for path in files if path.exists()],
            "memory": memory,
        }


def _all_handlers(hooks: dict[str, Any]) -> list[Any]:
    return [h for e in HOOK_EVENTS for h in hooks.get(e) or []]


INSTALLER = CopilotInstaller()

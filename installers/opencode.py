"""Wire funes into opencode: three entries in its global `opencode.json`, one plugin folder.

opencode has MCP but no shell hooks; its plugins are JavaScript modules that see every bus event.
`funes add opencode` copies `funes.plugins/opencode/` (the plugin `funes.js`, which runs
`funes hook opencode` on `session.idle`, and `FUNES.md`, the when-to-recall text) to
`$FUNES_HOME/integrations/opencode/` with a `funes.json` naming the funes command, then adds to
`$XDG_CONFIG_HOME/opencode/opencode.json`:

- `mcp.funes`: the local MCP server `funes mcp [MEMORY]` (tools `funes_recall`, `funes_get`);
- `plugin`: the plugin's `file://` URL;
- `instructions`: the path of FUNES.md.

Config entries survive opencode updates (its plugin folder and package.json are opencode's own to
rewrite). The file is rewritten with its own indentation and key order; `remove` takes out exactly
those entries, and when what is left equals the user's file before funes first changed it, puts
that file back byte for byte. opencode also reads JSON with comments there; funes refuses such a
file (it cannot keep the comments) with its line, rather than lose them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from funes.installers import jsonfile
from funes.installers.base import ConfigError, InstallReport, dump_json_like
from funes.installers.commands import mcp_command, server_environment
from funes.installers.plugin_folder import plugin_status, remove_plugin, render_plugin
from funes.paths import funes_home, opencode_config_dir

SERVER = "funes"
# The files of `funes.plugins/opencode/` that opencode loads; funes.json is written next to them.
PLUGIN_FILES: tuple[str, ...] = ("funes.js", "FUNES.md")
# What funes adds to opencode.json, and the shape each key must already have.
LISTS = ("plugin", "instructions")


def plugin_dir() -> Path:
    return funes_home() / "integrations" / "opencode"


def config_path() -> Path:
    return opencode_config_dir() / "opencode.json"


def plugin_url() -> str:
    return (plugin_dir() / "funes.js").as_uri()


def instructions_path() -> str:
    return str(plugin_dir() / "FUNES.md")


def _read_config(path: Path) -> tuple[dict[str, Any], str]:
    """The parsed config and its text ("" when absent); ConfigError for a shape funes cannot
    edit."""
    data, text = jsonfile.read_object(path)
    mcp = data.get("mcp")
    jsonfile.require(path, text, mcp, dict, "mcp", "mcp")
    if isinstance(mcp, dict):
        jsonfile.require(path, text, mcp.get(SERVER), dict, "mcp.funes", SERVER)
    for key in LISTS:
        jsonfile.require(path, text, data.get(key), list, key, key)
    return data, text


def _server(memory: str | None) -> dict[str, Any]:
    server: dict[str, Any] = {"type": "local", "command": mcp_command(memory), "enabled": True}
    if environment := server_environment():
        server["environment"] = environment
    return server


def _ours() -> dict[str, str]:
    return {"plugin": plugin_url(), "instructions": instructions_path()}


class OpencodeInstaller:
    agent = "opencode"

    def check(self) -> None:
        _read_config(config_path())

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        config = config_path()
        data, original = _read_config(config)  # refuse before touching anything
        render_plugin(report, "opencode", PLUGIN_FILES, plugin_dir(), memory)
        before = jsonfile.fingerprint(data)
        mcp = data.setdefault("mcp", {})
        server = _server(memory)
        if mcp.get(SERVER) != server:
            mcp[SERVER] = server
        for key, value in _ours().items():
            entries = data.get(key) or []
            if value not in entries:
                data[key] = [*entries, value]
        changed = jsonfile.fingerprint(data) != before or not config.exists()
        if changed:
            report.write(config, dump_json_like(data, original))
        report.notes.append(
            f"opencode loads funes from {config}: the MCP server (tools funes_recall and "
            f"funes_get), the plugin {plugin_dir() / 'funes.js'} that indexes each prompt when "
            "it ends, and FUNES.md saying when to recall. Restart running opencode sessions."
        )
        return report

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        config = config_path()
        data, original = _read_config(config)
        if config.exists():
            before = jsonfile.fingerprint(data)
            _remove_ours(data)
            if jsonfile.fingerprint(data) != before:
                jsonfile.write_back(report, config, data, original)
        remove_plugin(report, plugin_dir())
        return report

    def status(self) -> dict[str, object]:
        try:
            data, _ = _read_config(config_path())
        except ConfigError as error:
            return error.as_status()
        wired = SERVER in (data.get("mcp") or {}) and plugin_url() in (data.get("plugin") or [])
        return plugin_status(config_path(), wired, plugin_dir(), "funes.js")


def _remove_ours(data: dict[str, Any]) -> None:
    mcp = data.get("mcp")
    if isinstance(mcp, dict) and SERVER in mcp:
        del mcp[SERVER]
        if not mcp:
            del data["mcp"]
    for key, value in _ours().items():
        entries = data.get(key)
        if isinstance(entries, list) and value in entries:
            kept = [entry for entry in entries if entry != value]
            if kept:
                data[key] = kept
            else:
                del data[key]


INSTALLER = OpencodeInstaller()

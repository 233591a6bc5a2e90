"""Claude Code: the funes plugin (MCP server, recall skill, Stop/SessionEnd hooks) from a local
marketplace.

The plugin files ship in `funes.plugins` (`plugins/claude/`, a valid marketplace on its own with
`funes` from PATH). `install` renders a copy under `$FUNES_HOME/integrations/claude-plugin/` with
the absolute funes command and the bound memory baked in, then registers it through Claude
Code's own CLI (`claude plugin marketplace add`, `claude plugin install funes@funes`), which
writes `~/.claude/settings.json` and `~/.claude/plugins/`. Without `claude` on PATH it writes the
files and tells the user the two commands. Tools surface as `mcp__plugin_funes_funes__recall`.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

from funes.installers.agent_cli import changed_since, digests, run_agent_cli
from funes.installers.base import (
    ConfigError,
    InstallReport,
    backup_path,
    dump_json_like,
    prune_empty,
    read_config_text,
    read_json_config,
    settle_config,
)
from funes.installers.commands import hook_command, mcp_command
from funes.paths import claude_home, funes_home
from funes.plugins import plugin_dir

MARKETPLACE = "funes"
PLUGIN_ID = f"funes@{MARKETPLACE}"
# The settings.json keys Claude Code's plugin commands exist to edit.
PLUGIN_KEYS = frozenset({"enabledPlugins", "extraKnownMarketplaces"})
_MISSING = object()


def rendered_dir() -> Path:
    return funes_home() / "integrations" / "claude-plugin"


def _claude_state_files() -> list[Path]:
    """The files Claude Code's plugin commands rewrite (reported when they change)."""
    home = claude_home()
    plugins = home / "plugins"
    return [
        home / "settings.json",
        plugins / "known_marketplaces.json",
        plugins / "installed_plugins.json",
    ]


def settings_path() -> Path:
    return claude_home() / "settings.json"


def _read_settings() -> dict[str, Any]:
    data = read_json_config(settings_path())
    return data if isinstance(data, dict) else {}


def _put_back(report: InstallReport, before: dict[str, Any]) -> list[str]:
    """Restore the user's settings that Claude Code's own plugin commands dropped or changed
    while funes ran them (it rewrites settings.json whole, and has been seen to drop `"model"`);
    return their keys. The keys those commands exist to edit are theirs to change."""
    path = settings_path()
    text = read_config_text(path)
    now = _read_settings()
    lost = [k for k in before if k not in PLUGIN_KEYS and now.get(k, _MISSING) != before[k]]
    if lost:
        now.update({key: before[key] for key in lost})
        report.write(path, dump_json_like(now, text), backup=False)
    return lost


def _say_put_back(report: InstallReport, lost: list[str]) -> None:
    path = settings_path()
    names = ", ".join(f'"{key}"' for key in lost)
    report.notes.append(
        f"Claude Code's `claude plugin` command dropped or changed {names} in {path}; funes put "
        f"back what you had (the file from before `funes add` is {backup_path(path)})"
    )


def _drop_emptied_plugin_keys(report: InstallReport) -> None:
    """Claude Code's uninstall leaves `"enabledPlugins": {}` (and the marketplaces) behind:
    drop the ones the user's file from before `funes add` did not have."""
    path = settings_path()
    saved = read_json_config(backup_path(path))
    had = set(saved) if isinstance(saved, dict) else set()
    text = read_config_text(path)
    now = _read_settings()
    emptied = [k for k in PLUGIN_KEYS if now.get(k) == {} and k not in had]
    if emptied:
        kept = {k: v for k, v in now.items() if k not in emptied}
        report.write(path, dump_json_like(kept, text), backup=False)


def render_plugin(memory: str | None) -> dict[Path, bytes]:
    """Relative path → bytes of the plugin with funes's absolute command (and memory) baked in."""
    source = plugin_dir("claude")
    hook = shlex.join(hook_command("claude"))
    files: dict[Path, bytes] = {}
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        relative = path.relative_to(source)
        if relative.name == "plugin.json":
            manifest = json.loads(path.read_text())
            command = mcp_command(memory)
            # alwaysLoad: Claude Code waits for the server before the first model call (`-p`
            # otherwise races it) and never defers its tools behind ToolSearch.
            manifest["mcpServers"]["funes"] |= {"command": command[0], "args": command[1:]}
            files[relative] = _json_bytes(manifest)
        elif relative.name == "hooks.json":
            hooks = json.loads(path.read_text())
            for groups in hooks["hooks"].values():
                for group in groups:
                    for handler in group["hooks"]:
                        handler["command"] = hook
            files[relative] = _json_bytes(hooks)
        elif relative.suffix not in {".py", ".pyc"}:
            files[relative] = path.read_bytes()
    return files


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode()


class ClaudeInstaller:
    agent = "claude"

    def _claude(self) -> str | None:
        return shutil.which("claude")

    def _run(self, claude: str, *args: str) -> None:
        run_agent_cli([claude, "plugin", *args], f"claude plugin {' '.join(args)}")

    def check(self) -> None:
        self._check_configs()

    def _check_configs(self) -> None:
        for path in [*_claude_state_files(), Path.home() / ".claude.json"]:
            read_json_config(path)

    def _registered(self) -> tuple[bool, bool]:
        """(marketplace known, plugin installed) according to Claude Code's own records."""
        plugins = claude_home() / "plugins"
        known = read_json_config(plugins / "known_marketplaces.json")
        installed = read_json_config(plugins / "installed_plugins.json")
        has_market = isinstance(known, dict) and MARKETPLACE in known
        entries = installed.get("plugins", {}) if isinstance(installed, dict) else {}
        return has_market, isinstance(entries, dict) and PLUGIN_ID in entries

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        self._check_configs()
        root = rendered_dir()
        plugin_changed = False
        for relative, data in render_plugin(memory).items():
            plugin_changed |= report.write(root / relative, data, backup=False)
        claude = self._claude()
        if claude is None:
            report.notes.append(
                "`claude` is not on PATH: the plugin is ready; to load it run\n"
                f"  claude plugin marketplace add {shlex.quote(str(root))}\n"
                f"  claude plugin install {PLUGIN_ID}"
            )
            return report
        before = digests(_claude_state_files())
        self._backup_settings()
        settings = _read_settings()
        has_market, installed = self._registered()
        if not has_market:
            self._run(claude, "marketplace", "add", str(root))
        if installed and plugin_changed:  # Claude Code runs a cached copy: refresh it
            self._run(claude, "uninstall", PLUGIN_ID)
            installed = False
        if not installed:
            self._run(claude, "install", PLUGIN_ID)
        lost = _put_back(report, settings)
        if lost:
            _say_put_back(report, lost)
        report.changed += changed_since(before)
        report.changed = list(dict.fromkeys(report.changed))
        if plugin_changed:
            report.notes.append(
                "Claude Code: tools mcp__plugin_funes_funes__recall / __get and the funes:recall "
                "skill load in new sessions; each finished turn is indexed by the Stop hook."
            )
        return report

    def _backup_settings(self) -> None:
        """Keep the user's settings.json as it was before Claude Code's CLI edits it for us."""
        settings = settings_path()
        saved = backup_path(settings)
        if settings.exists() and not saved.exists():
            shutil.copy2(settings, saved)

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        self._check_configs()
        claude = self._claude()
        before = digests(_claude_state_files())
        settings = _read_settings()
        has_market, installed = self._registered()
        if claude is not None:
            if installed:
                self._run(claude, "uninstall", PLUGIN_ID)
            if has_market:
                self._run(claude, "marketplace", "remove", MARKETPLACE)
            lost = _put_back(report, settings)
            if installed or has_market:
                _drop_emptied_plugin_keys(report)
                settle_config(report, settings_path(), json.loads)
            if lost and backup_path(settings_path()).exists():  # else all is as it was
                _say_put_back(report, lost)
        elif installed or has_market:
            report.notes.append(
                "`claude` is not on PATH: to unload the plugin run\n"
                f"  claude plugin uninstall {PLUGIN_ID}\n"
                f"  claude plugin marketplace remove {MARKETPLACE}"
            )
        # Claude Code leaves an "orphaned" cached copy of an uninstalled plugin behind.
        cache = claude_home() / "plugins" / "cache" / MARKETPLACE
        if claude is not None and cache.is_dir():
            shutil.rmtree(cache)
            report.changed.append(cache)
        root = rendered_dir()
        if root.exists():
            report.changed += sorted(p for p in root.rglob("*") if p.is_file())
            shutil.rmtree(root)
            prune_empty(root.parent)
        report.changed += changed_since(before)
        report.changed = list(dict.fromkeys(report.changed))
        return report

    def status(self) -> dict[str, object]:
        try:
            has_market, installed = self._registered()
        except ConfigError as error:
            return error.as_status()
        root = rendered_dir()
        return {
            "installed": root.exists() and (installed or self._claude() is None),
            "registered_with_claude": installed and has_market,
            "plugin_dir": str(root),
            "files": sorted(str(p) for p in root.rglob("*") if p.is_file())
            if root.exists()
            else [],
        }


INSTALLER = ClaudeInstaller()

"""Wire funes into pi: a local pi package (the TypeScript extension) listed in settings.json.

pi has no MCP; its extensions register tools and lifecycle handlers. `funes add pi` copies the
extension in `funes.plugins/pi/` to `$FUNES_HOME/integrations/pi/` with a `funes.json` naming the
funes command and the bound memory, then lists that folder under `"packages"` in
`~/.pi/agent/settings.json`: exactly what `pi install <folder>` does (so `pi list` shows it and
`pi remove <folder>` works), without needing pi on PATH.

settings.json is rewritten with its own indentation and key order; JSON has no comments to keep.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from funes.installers import jsonfile
from funes.installers.base import ConfigError, InstallReport, dump_json_like, settle_config
from funes.installers.plugin_folder import plugin_status, remove_plugin, render_plugin
from funes.paths import funes_home, pi_agent_dir

# The files of `funes.plugins/pi/` that pi loads; funes.json is written next to them.
PACKAGE_FILES: tuple[str, ...] = ("index.ts", "package.json")


def package_dir() -> Path:
    return funes_home() / "integrations" / "pi"


def settings_path() -> Path:
    return pi_agent_dir() / "settings.json"


def _read_settings(path: Path) -> tuple[dict[str, Any], str]:
    """The parsed settings object and its text ("" when absent); ConfigError if malformed."""
    data, text = jsonfile.read_object(path, jsonfile.not_valid_json)  # pi reads plain JSON
    jsonfile.require(path, text, data.get("packages"), list, "packages", "packages")
    return data, text


def _is_ours(entry: object, ours: str) -> bool:
    source = entry.get("source") if isinstance(entry, dict) else entry
    return isinstance(source, str) and source.rstrip("/") == ours


class PiInstaller:
    agent = "pi"

    def check(self) -> None:
        _read_settings(settings_path())

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        settings = settings_path()
        data, original = _read_settings(settings)  # refuse before touching anything

        target = package_dir()
        render_plugin(report, "pi", PACKAGE_FILES, target, memory)

        packages = data.get("packages") or []
        if not any(_is_ours(entry, str(target)) for entry in packages):
            data["packages"] = [*packages, str(target)]
            report.write(settings, dump_json_like(data, original))
        report.notes.append(
            f"pi loads the funes package from {target} (listed in {settings}; `pi list` shows "
            "it): tools `recall` and `get`, and every prompt is indexed when it ends. "
            "Restart running pi sessions, or type /reload."
        )
        return report

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        settings = settings_path()
        data, original = _read_settings(settings)
        target = package_dir()
        packages = data.get("packages")
        if packages is not None:
            kept = [entry for entry in packages if not _is_ours(entry, str(target))]
            if len(kept) != len(packages):
                if kept:
                    data["packages"] = kept
                else:
                    del data["packages"]
                # No backup now: the file holds funes's entry; the user's is from before `add`.
                report.write(settings, dump_json_like(data, original), backup=False)
                settle_config(report, settings, json.loads)
        remove_plugin(report, target)
        return report

    def status(self) -> dict[str, object]:
        target = package_dir()
        try:
            data, _ = _read_settings(settings_path())
        except ConfigError as exc:
            return exc.as_status()
        listed = any(_is_ours(entry, str(target)) for entry in data.get("packages") or [])
        return plugin_status(settings_path(), listed, target, "index.ts")


INSTALLER = PiInstaller()

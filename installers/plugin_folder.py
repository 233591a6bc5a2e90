"""A plugin folder funes renders for an agent that loads plugins from a folder (Hermes, opencode,
pi): the files of `funes.plugins/<agent>/` with a `funes.json` naming the funes command and the
bound memory, removed whole, and read back for `funes status`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from funes.installers.base import InstallReport
from funes.installers.commands import funes_command


def render_plugin(
    report: InstallReport, plugin: str, files: tuple[str, ...], target: Path, memory: str | None
) -> None:
    """Copy `files` of `funes.plugins/<plugin>/` into `target` and write `funes.json` next to
    them (the funes command line and the bound memory, read back by `bound_memory_in`); every
    file that changed goes into `report`."""
    from importlib import resources

    source = resources.files("funes.plugins") / plugin
    for name in files:
        report.write(target / name, (source / name).read_bytes(), backup=False)
    bound = {"command": funes_command(), "memory": memory}
    report.write(target / "funes.json", json.dumps(bound, indent=2) + "\n", backup=False)


def remove_plugin(report: InstallReport, target: Path) -> None:
    """Delete the rendered plugin folder `target` (its files go into `report`)."""
    if target.exists():
        report.changed.extend(path for path in sorted(target.iterdir()) if path.is_file())
        shutil.rmtree(target)


def plugin_status(config: Path, wired: bool, target: Path, marker: str) -> dict[str, object]:
    """An installer's status for a plugin rendered into `target` (present when its `marker`
    file is) and `wired` in the agent's `config`: installed when both, the files, the memory."""
    present = (target / marker).exists()
    files = [str(config)] if wired else []
    files += [str(path) for path in sorted(target.glob("*"))] if present else []
    return {"installed": wired and present, "files": files, "memory": bound_memory_in(target)}


def bound_memory_in(folder: Path) -> str | None:
    """The memory recorded in a rendered plugin's `funes.json`, or None."""
    try:
        memory = json.loads((folder / "funes.json").read_text()).get("memory")
    except (OSError, ValueError, AttributeError):
        return None
    return memory if isinstance(memory, str) else None

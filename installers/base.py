"""What every installer shares: safe file edits and a record of what was changed."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


class ConfigError(Exception):
    """A config file funes must edit is malformed; it was left untouched."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(
            f"{where}: {problem} — fix the file by hand, then run again (nothing was changed)"
        )
        self.path = path
        self.line = line

    def as_status(self) -> dict[str, object]:
        """An installer's status when this config cannot be read: not installed, and why (the
        `error` that `funes status` and `funes doctor` show)."""
        return {"installed": False, "files": [], "error": str(self)}


@dataclass
class InstallReport:
    agent: str
    changed: list[Path] = field(default_factory=list)  # files whose bytes changed
    notes: list[str] = field(default_factory=list)  # things the user must know or do

    def write(self, path: Path, data: str | bytes, *, backup: bool = True) -> bool:
        """`write_atomic`, with `path` recorded as changed when its bytes did change."""
        if not write_atomic(path, data, backup=backup):
            return False
        self.changed.append(path)
        return True


def write_atomic(path: Path, data: str | bytes, *, backup: bool = True) -> bool:
    """Write `data` to `path` atomically; return False (and touch nothing) if unchanged.

    Before the first change funes ever makes to an existing file, a copy is kept beside it as
    `<name>.funes-backup`, so the user's original is always recoverable.
    """
    raw = data.encode() if isinstance(data, str) else data
    if path.exists() and path.read_bytes() == raw:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    if backup and path.exists():
        saved = backup_path(path)
        if not saved.exists():
            shutil.copy2(path, saved)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def backup_path(path: Path) -> Path:
    """Where the user's original of a config funes edits is kept (`<name>.funes-backup`)."""
    return path.with_name(path.name + ".funes-backup")


def settle_config(report: InstallReport, path: Path, load: Callable[[str], object]) -> None:
    """After an uninstall took funes's entries out of `path`, leave the user's config as it was.

    `load` parses the file's text ("" for an empty one). When the settings are those of the
    backup kept before funes's first change, the backup's bytes go back (byte for byte as it
    was) and the backup goes; a file funes created (no backup) that holds nothing now is
    deleted. Otherwise both stay, and a note says what differs and where the backup is.
    """
    saved = backup_path(path)
    if not path.exists():
        return
    now = _settings(load, path.read_text(encoding="utf-8"))
    if not saved.exists():
        if not now:
            path.unlink()
            report.changed.append(path)
        return
    before = _settings(load, saved.read_text(encoding="utf-8"))
    if now == before:
        if path.read_bytes() != saved.read_bytes():
            report.changed.append(path)
        os.replace(saved, path)
        return
    report.notes.append(
        f"{path} is not as it was before `funes add` ({describe_difference(before, now)}); "
        f"the file from before is {saved}"
    )


def _settings(load: Callable[[str], object], text: str) -> object:
    """The parsed settings, without empty lists and mappings: a key holding nothing and no key
    mean the same to an agent (and an uninstall may leave either)."""
    return _without_empty(load(text) if text.strip() else None)


def _without_empty(value: object) -> object:
    if isinstance(value, dict):
        kept = {k: _without_empty(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ({}, [], None)} or None
    if isinstance(value, list):
        return [_without_empty(item) for item in value] or None
    return value


def describe_difference(before: object, now: object) -> str:
    """What changed between two parsed configs, by top-level key when both are mappings."""
    if not isinstance(before, dict) or not isinstance(now, dict):
        return "its content changed"
    parts = [f'"{key}" is missing' for key in before if key not in now]
    parts += [f'"{key}" changed' for key in before if key in now and before[key] != now[key]]
    parts += [f'"{key}" was added' for key in now if key not in before]
    return ", ".join(parts) or "its content changed"


class Installer(Protocol):
    agent: str  # claude | codex | pi | hermes

    def check(self) -> None:
        """Raise ConfigError if a config file install/uninstall edits is malformed; writes
        nothing (run before anything else changes, so a refusal leaves no trace)."""
        ...

    def install(self, memory: str | None = None) -> InstallReport:
        """Wire funes into the agent (recall/get tools + per-turn hook); idempotent."""
        ...

    def uninstall(self) -> InstallReport:
        """Undo exactly what install did; the user's own entries survive."""
        ...

    def status(self) -> dict[str, object]:
        """{"installed": bool, "files": [...], ...} for `funes status`."""
        ...


def prune_empty(folder: Path) -> None:
    """Remove `folder` when nothing is left in it."""
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


def read_config_text(path: Path) -> str:
    """A config file's text ("" when absent); ConfigError naming the line of a byte that is not
    UTF-8, or a file that cannot be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ""
    except IsADirectoryError:
        raise ConfigError(path, None, "is a folder, not a file") from None
    except OSError as error:
        raise ConfigError(path, None, f"cannot be read ({error.strerror})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        problem = f"not valid UTF-8 (byte 0x{raw[error.start]:02x})"
        raise ConfigError(path, line, problem) from None


def dump_json_like(data: object, original: str) -> str:
    """Serialise `data` in the layout of `original` (its indent unit, tabs or spaces, and final
    newline; one line if it was one line), keeping non-ASCII text as written."""
    import json

    indent: int | str | None = 2
    lines = [line for line in original.splitlines() if line.strip()]
    if len(lines) == 1:
        indent = None
    elif lines:
        for line in lines[1:]:
            stripped = line.lstrip()
            if len(stripped) < len(line):
                unit = line[: len(line) - len(stripped)]
                indent = unit if "\t" in unit else len(unit)
                break
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return text + "\n" if original.endswith("\n") or not original.strip() else text


def read_json_config(path: Path) -> object:
    """Parse a JSON config funes must edit; absent → None; malformed → ConfigError (file, line)."""
    import json

    text = read_config_text(path)
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(path, error.lineno, f"not valid JSON ({error.msg})") from None

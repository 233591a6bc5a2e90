"""What every installer shares: safe file edits and a record of what was changed."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import subprocess


class ConfigError(Exception):
    """A config file funes must edit is malformed; it was left untouched."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(
            f"{where}: {problem} — fix the file by hand, then run again (nothing was changed)"
        )
        self.path = path
        self.line = line


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


def funes_command() -> list[str]:
    """The argv that runs funes, recorded in agent configs (`$FUNES_BIN` overrides)."""
    override = os.environ.get("FUNES_BIN", "").strip()
    if override:
        return [override]
    # The funes of the environment running this (a venv's bin need not be on the agent's PATH).
    beside = Path(sys.executable).with_name("funes")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("funes")
    return [found] if found else ["funes"]


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


# How long an agent's own CLI may take to register or unregister funes (`claude plugin ...`).
AGENT_CLI_TIMEOUT_S = 120


def run_agent_cli(
    argv: list[str], shown: str, *, check: bool = True, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run an agent's own CLI with no terminal input; when it fails (and `check`), RuntimeError
    naming the command as `shown` and the last line it printed."""
    import subprocess

    result = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=AGENT_CLI_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
    )
    if check and result.returncode != 0:
        output = (result.stderr.strip() or result.stdout.strip()).splitlines()
        detail = output[-1] if output else f"exit {result.returncode}"
        raise RuntimeError(f"`{shown}` failed: {detail}")
    return result


def digests(paths: list[Path]) -> dict[Path, str | None]:
    """Each file's sha256 (None when absent): taken before an agent's CLI rewrites its own
    files, so that `changed_since` can report the ones it changed."""
    import hashlib

    return {p: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None for p in paths}


def changed_since(before: dict[Path, str | None]) -> list[Path]:
    """The files of `before` (from `digests`) whose bytes are not what they were."""
    now = digests(list(before))
    return [path for path, digest in before.items() if now[path] != digest]


def prune_empty(folder: Path) -> None:
    """Remove `folder` when nothing is left in it."""
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


def runs_funes_hook(command: object, agent: str) -> bool:
    """Whether a hook's shell `command` runs `<funes> hook <agent>` (any funes path, with a
    FUNES_HOME or not): how an installer tells its own hook from the user's."""
    import shlex

    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    for i in range(1, len(argv) - 1):
        if argv[i] == "hook" and argv[i + 1] == agent and Path(argv[i - 1]).name == "funes":
            return True
    return argv[: len(hook_command(agent))] == hook_command(agent)


def mcp_command(memory: str | None) -> list[str]:
    """The argv of the MCP server an agent starts: `funes mcp [MEMORY]`."""
    return [*funes_command(), "mcp", *([memory] if memory else [])]


def server_environment() -> dict[str, str]:
    """What an MCP server's environment must carry in: a non-default FUNES_HOME ({} when it is
    the default). Agents start their servers with a cleaned environment."""
    home = os.environ.get("FUNES_HOME", "").strip()
    return {"FUNES_HOME": home} if home else {}


def hook_command(agent: str) -> list[str]:
    """The argv an agent runs after each turn: `funes hook <agent>` (funes.integrations.hook)."""
    return [*funes_command(), "hook", agent]


def hook_shell_command(agent: str) -> str:
    """`funes hook <agent>` as one shell command line, carrying a non-default FUNES_HOME in
    (Gemini CLI and Qwen Code strip unknown variables from hooks when they sanitise their
    environment)."""
    import shlex

    home = os.environ.get("FUNES_HOME", "").strip()
    argv = hook_command(agent)
    return shlex.join(["env", f"FUNES_HOME={home}", *argv] if home else argv)


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


def render_plugin(
    report: InstallReport, plugin: str, files: tuple[str, ...], target: Path, memory: str | None
) -> None:
    """Copy `files` of `funes.plugins/<plugin>/` into `target` and write `funes.json` next to
    them (the funes command line and the bound memory, read back by `bound_memory_in`); every
    file that changed goes into `report`."""
    import json
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
    import json

    try:
        memory = json.loads((folder / "funes.json").read_text()).get("memory")
    except (OSError, ValueError, AttributeError):
        return None
    return memory if isinstance(memory, str) else None

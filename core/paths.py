"""Where things live on disk: funes's own state and each agent's transcripts."""

from __future__ import annotations

import os
from pathlib import Path


def funes_home() -> Path:
    """`$FUNES_HOME`, default `~/.funes`."""
    env = os.environ.get("FUNES_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".funes"


# A memory of someone's work is theirs alone: what funes creates is 0700 folders, 0600 files.
PRIVATE_UMASK = 0o077


def tighten_home() -> None:
    """Make a `$FUNES_HOME` an older funes (or a loose umask) left open to others its owner's
    only. What funes creates is private by its umask (`PRIVATE_UMASK`, set by the CLI and by
    the writer lock); this walk is for what came before, and runs only while the home folder
    itself is open: once it is 0700, nothing below it can be reached by anyone else."""
    home = funes_home()
    try:
        loose = home.is_dir() and home.stat().st_mode & 0o077
    except OSError:
        return
    if loose:
        tighten(home)


def tighten(folder: Path) -> None:
    """chmod go-rwx on `folder` and everything below it (links are left alone)."""
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
                if not os.path.islink(path) and st.st_mode & 0o077:
                    os.chmod(path, st.st_mode & 0o7700)
            except OSError:
                continue  # vanished meanwhile, or not ours: the folder above still hides it
    os.chmod(folder, os.stat(folder).st_mode & 0o7700)


def ensure_writable_home() -> Path:
    """Create `$FUNES_HOME` if needed and prove a file can be written in it (OSError if not),
    before a command changes anything elsewhere."""
    tighten_home()
    home = funes_home()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    probe = home / f".write-probe-{os.getpid()}"
    probe.write_bytes(b"")
    probe.unlink()
    return home


def local_memory_dir() -> Path:
    """The default local memory: a LanceDB database folder holding table `chunks`."""
    return funes_home() / "memory"


def logs_dir() -> Path:
    return funes_home() / "logs"


def claude_home() -> Path:
    env = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".claude"


def codex_home() -> Path:
    env = os.environ.get("CODEX_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".codex"


def pi_agent_dir() -> Path:
    env = os.environ.get("PI_CODING_AGENT_DIR", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


def hermes_home() -> Path:
    env = os.environ.get("HERMES_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".hermes"


def gemini_dir() -> Path:
    """Gemini CLI's `.gemini` folder: under `$GEMINI_CLI_HOME` when set, else the home folder."""
    env = os.environ.get("GEMINI_CLI_HOME", "").strip()
    return (Path(env).expanduser() if env else Path.home()) / ".gemini"


def qwen_home() -> Path:
    """Qwen Code's folder: `$QWEN_HOME`, default `~/.qwen`."""
    env = os.environ.get("QWEN_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".qwen"


def opencode_db() -> Path:
    """opencode's database: `$OPENCODE_DB` (relative to its data folder unless absolute), else
    `$XDG_DATA_HOME/opencode/opencode.db`."""
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    folder = (Path(data).expanduser() if data else Path.home() / ".local" / "share") / "opencode"
    named = os.environ.get("OPENCODE_DB", "").strip()
    return folder / Path(named).expanduser() if named else folder / "opencode.db"


def opencode_config_dir() -> Path:
    """opencode's global config folder: `$XDG_CONFIG_HOME/opencode` (default ~/.config)."""
    env = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(env).expanduser() if env else Path.home() / ".config") / "opencode"


def copilot_home() -> Path:
    """GitHub Copilot CLI's folder: `$COPILOT_HOME`, default ~/.copilot."""
    env = os.environ.get("COPILOT_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".copilot"


def is_within(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or lies below it, links resolved (False when either cannot
    be resolved)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True

"""Where things live on disk: funes's own state and each agent's transcripts."""

from __future__ import annotations

import os
from pathlib import Path


def funes_home() -> Path:
    """`$FUNES_HOME`, default `~/.funes`."""
    env = os.environ.get("FUNES_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".funes"


def ensure_writable_home() -> Path:
    """Create `$FUNES_HOME` if needed and prove a file can be written in it (OSError if not),
    before a command changes anything elsewhere."""
    home = funes_home()
    home.mkdir(parents=True, exist_ok=True)
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

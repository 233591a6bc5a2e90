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


def gemini_dir() -> Path:
    """Gemini CLI's `.gemini` folder: under `$GEMINI_CLI_HOME` when set, else the home folder."""
    env = os.environ.get("GEMINI_CLI_HOME", "").strip()
    return (Path(env).expanduser() if env else Path.home()) / ".gemini"


def qwen_home() -> Path:
    """Qwen Code's folder: `$QWEN_HOME`, default `~/.qwen`."""
    env = os.environ.get("QWEN_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".qwen"


def is_within(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or lies below it, links resolved (False when either cannot
    be resolved)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True

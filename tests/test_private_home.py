"""A memory of someone's work is readable by its owner only: FUNES_HOME's folders are 0700 and
its files 0600 whatever the umask, and a home an older funes left open is tightened on the next
write."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from trust_fixtures import FUNES, claude_transcript

from funes.paths import funes_home


def open_to_others(home: Path) -> list[str]:
    """Everything under `home` (and itself) that its group or others can reach."""
    loose = []
    for path in [home, *home.rglob("*")]:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            continue
        if mode & 0o077:
            loose.append(f"{path.relative_to(home.parent)} {stat.filemode(mode)}")
    return loose


def funes_at_umask(umask: str, *args: str) -> None:
    """`funes ARGS` from a shell whose umask is `umask`, as a user's terminal would run it."""
    command = " ".join([f"umask {umask};", *FUNES, *args])
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stderr


def test_a_new_home_is_private_at_umask_022() -> None:
    claude_transcript("sess-private", ["the payroll export lives in hr/", "noted"])
    funes_at_umask("022", "index", "--all")
    funes_at_umask("022", "forget", "--before", "2020-01-01", "--yes")
    home = funes_home()
    for folder in ("memory", "state.resume", "forgotten"):
        assert (home / folder).is_dir(), folder
    assert open_to_others(home) == []


def test_an_existing_open_home_is_tightened_on_the_next_write() -> None:
    claude_transcript("sess-open", ["the staging password rotation", "done"])
    funes_at_umask("022", "index", "--all")
    home = funes_home()
    for path in [home, *home.rglob("*")]:  # as an older funes left it at umask 022
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert open_to_others(home)

    claude_transcript("sess-open", ["the staging password rotation", "done", "and prod"])
    funes_at_umask("022", "index", "--all")
    assert open_to_others(home) == []

"""A full disk, called by its name: how much room a write needs, and that nothing was lost.

Lance reports a full disk as `LanceError(IO): No space left on device (os error 28), <Rust source
path>`, the same shape as a damaged file; told apart here, it must never send a user to the
way out of real damage (moving the memory aside and rebuilding it). Nothing is lost on a full
disk: every write commits atomically (a Lance version, a state file replaced by rename), so
the memory and its state stay as the last completed write left them.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Iterable
from pathlib import Path

# Room an index run takes, as a share of the transcripts it reads: at its peak (rows appended,
# then the indexes built and the fragments compacted before the old files go) the shared
# corpus's 12.0 MB of Claude Code transcripts took 9.8 MB, and left a 7.7 MB memory. Half, as
# this was, sent users to free too little and fill the disk again.
STORED_SHARE = 0.9
# ... plus, as a share of the memory's own size, what folding the new rows into it takes before
# the old files go (compacted fragments and rebuilt indexes are written whole first): a run
# adding 2 MB of transcripts to a 5.1 MB memory peaked 7.4 MB above where it started.
REWRITE_SHARE = 1.5
_MARKERS = ("No space left on device", "os error 28", "Disk quota exceeded", "os error 122")


class DiskFull(Exception):
    """A write ran out of room; the message says where, roughly how much more, and that
    nothing was lost."""


def is_disk_full(error: BaseException) -> bool:
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return any(marker in str(error) for marker in _MARKERS)


def disk_full(where: Path, needed_bytes: int, stored: str = "") -> DiskFull:
    """The error to raise when a write under `where` found the disk full and needs about
    `needed_bytes` in all (what is free now is subtracted); `stored` says what the write had
    already stored, when that is worth knowing."""
    try:
        free = shutil.disk_usage(_existing(where)).free
    except OSError:
        free = 0
    more = max(needed_bytes - free, 0)
    need = f"about {size(more)} more" if more else f"about {size(needed_bytes)}"
    return DiskFull(
        f"the disk holding {where} is full ({size(free)} free; this needs {need}): {stored}nothing "
        "was lost, the memory is as its last completed write left it — free some space and "
        "run the command again"
    )


def needed_for_memory(memory: Path, transcripts: Iterable[Path] = ()) -> int:
    """Room a write to `memory` needs, roughly: the rows `transcripts` would add, plus what
    folding them into the memory rewrites before the old files go (more than its own size)."""
    from funes.index.maintenance import folder_bytes

    pending = 0
    for path in transcripts:
        try:
            pending += path.stat().st_size
        except OSError:
            continue
    return int(pending * STORED_SHARE + folder_bytes(memory) * REWRITE_SHARE)


def size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path

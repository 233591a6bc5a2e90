"""One writer at a time: an advisory lock on `$FUNES_HOME/writer.lock`.

Readers take no lock (Lance gives them a consistent snapshot). A second writer waits up to
`wait_s` and then gives up with `LockBusy`; the kernel drops the lock when a holder dies, so a
killed run never wedges the memory.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from funes.paths import PRIVATE_UMASK, funes_home, tighten_home


class LockBusy(Exception):
    """Another funes process is writing this memory."""


def lock_path() -> Path:
    return funes_home() / "writer.lock"


@contextmanager
def writer_lock(wait_s: float = 10.0, poll_s: float = 0.1) -> Iterator[None]:
    # Every write to a memory goes through here, library callers' too: what it writes is
    # private, and a library caller's own umask comes back afterwards.
    previous = os.umask(PRIVATE_UMASK)
    try:
        tighten_home()
        with _flock(wait_s, poll_s):
            yield
    finally:
        os.umask(previous)


@contextmanager
def _flock(wait_s: float, poll_s: float) -> Iterator[None]:
    path = lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockBusy(
                        "another funes process is writing the memory; try again in a moment"
                    ) from None
                time.sleep(poll_s)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing releases the flock

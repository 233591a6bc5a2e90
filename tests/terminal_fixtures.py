"""A funes command run in a real pseudo-terminal, for the tests of the pickers a person drives
with keys (`funes sessions`, `funes curate`): what it draws, the keys sent, how it exits."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


def _own_terminal() -> None:
    """Make the pty the child's controlling terminal, so a Ctrl-C typed into it is a SIGINT."""
    import fcntl
    import termios

    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """The terminal side of a running `funes ARGS`: `screen` holds every byte it has shown."""

    def __init__(self, primary: int, child: subprocess.Popen[bytes]) -> None:
        self.primary = primary
        self.child = child
        self.screen = b""

    def read(self, until: bytes | None = None, timeout: float = 60.0) -> None:
        """Take what the program shows until `until` is on the screen (asserted), or, with
        None, until it has been quiet for 0.2 s or has ended; at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (until is None or until not in self.screen):
            ready, _, _ = select.select([self.primary], [], [], 0.2)
            if not ready:
                if until is None:
                    break
                continue
            try:
                chunk = os.read(self.primary, 65536)
            except OSError:  # the program ended and its side of the pty is closed
                break
            if not chunk:
                break
            self.screen += chunk
        if until is not None:
            assert until in self.screen, self.screen[-2000:]

    def type(self, keys: list[bytes]) -> None:
        """Send each of `keys` as a person would: one at a time, the screen redrawn between."""
        for key in keys:
            os.write(self.primary, key)
            time.sleep(0.3)

    def exit_code(self, timeout: float = 30) -> int:
        """Wait for the program to end; then take what it printed last."""
        code = self.child.wait(timeout=timeout)
        self.read(None, timeout=2)
        return code


@contextmanager
def funes_in_a_terminal(*args: str, lines: int = 24) -> Iterator[Terminal]:
    """`funes ARGS` on a 100-column xterm of `lines` lines, killed if still running after."""
    primary, secondary = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100", "LINES": str(lines)}
    env.pop("FUNES_NO_TUI", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "funes.cli", *args],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env,
        close_fds=True,
        preexec_fn=_own_terminal,
    )
    os.close(secondary)
    try:
        yield Terminal(primary, child)
    finally:
        if child.poll() is None:
            child.kill()
        os.close(primary)

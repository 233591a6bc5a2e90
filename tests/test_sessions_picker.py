"""`funes sessions` on a terminal: a picker filtered as you type, moved with the arrow keys,
with a preview of the selected session; Enter prints it, Esc cancels. Piped, it is the plain
list (test_sessions.py)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import time

from recall_fixtures import build_memory, turn

from funes.inspect.picker import Picker
from funes.inspect.sessions import list_sessions


def _memory() -> None:
    build_memory(
        [
            turn("aaaa1111-x", "a1", 0, "fix the flaky checkout test", ts="2026-03-03T10:00:00Z"),
            turn("bbbb2222-y", "b1", 0, "why is the cart slow", ts="2026-03-02T10:00:00Z"),
            turn(
                "cccc3333-z",
                "c1",
                0,
                "profile the cart service",
                harness="codex",
                workdir="/srv/cart",
                ts="2026-03-01T10:00:00Z",
            ),
        ]
    )


def test_typing_filters_and_arrows_move_over_what_is_shown() -> None:
    _memory()
    picker = Picker(list_sessions())
    assert [s.session_id for s in picker.shown] == ["aaaa1111-x", "bbbb2222-y", "cccc3333-z"]
    for char in "cart":
        picker.key(char)
    assert [s.session_id for s in picker.shown] == ["bbbb2222-y", "cccc3333-z"]
    for char in " dex":  # every word must appear: "cart" and "dex" (codex)
        picker.key(char)
    assert [s.session_id for s in picker.shown] == ["cccc3333-z"]
    for _ in range(3):
        picker.key("backspace")
    picker.key("down")
    picker.key("down")  # past the end: stays on the last
    assert picker.selected is not None and picker.selected.session_id == "cccc3333-z"
    picker.key("enter")
    assert picker.done and picker.chosen == picker.selected


def _own_terminal() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _terminal_sessions(keys: list[bytes]) -> tuple[int, bytes]:
    primary, secondary = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100", "LINES": "24"}
    env.pop("FUNES_NO_TUI", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "funes.cli", "sessions"],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env,
        close_fds=True,
        preexec_fn=_own_terminal,
    )
    os.close(secondary)
    screen = b""

    def read(until: bytes | None, timeout: float = 60.0) -> None:
        nonlocal screen
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (until is None or until not in screen):
            ready, _, _ = select.select([primary], [], [], 0.2)
            if not ready:
                if until is None:
                    return
                continue
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                return
            if not chunk:
                return
            screen += chunk

    try:
        read(b"Enter choose")  # the help line is drawn
        for key in keys:
            os.write(primary, key)
            time.sleep(0.3)
        code = child.wait(timeout=30)
        read(None, timeout=2)
    finally:
        if child.poll() is None:
            child.kill()
        os.close(primary)
    return code, screen


def test_the_terminal_picker_filters_previews_and_prints_the_choice() -> None:
    _memory()
    code, screen = _terminal_sessions([b"cart", b"\x1b[B", b"\r"])
    assert code == 0
    assert b"bbbb2222-y" in screen  # previewed: the first match, before moving
    tail = screen.rsplit(b"\x1b[?1049l", 1)[-1]  # what is printed after the picker closes
    assert b"session cccc3333-z \xc2\xb7 codex \xc2\xb7 /srv/cart" in tail
    assert b"funes resume cccc3333" in tail


def test_esc_cancels_the_picker() -> None:
    _memory()
    code, screen = _terminal_sessions([b"\x1b"])
    assert code == 0
    tail = screen.rsplit(b"\x1b[?1049l", 1)[-1]
    assert b"cancelled" in tail and b"funes resume" not in tail

"""`funes sessions` on a terminal: a picker filtered as you type, moved with the arrow keys,
with a preview of the selected session; Enter prints it, Esc cancels. Piped, it is the plain
list (test_sessions.py)."""

from __future__ import annotations

from recall_fixtures import build_memory, turn
from terminal_fixtures import funes_in_a_terminal

from funes.inspect.picker import COPY, RESUME, Picker
from funes.inspect.sessions import list_sessions, sessions_saying
from funes.sync.memory import open_memory


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
    picker.key("ctrl-y")  # copy and read come back to the list
    assert picker.action == COPY and not picker.done
    picker.key("enter")
    assert picker.done and picker.chosen == picker.selected and picker.action == RESUME


def test_the_picker_finds_a_session_by_a_word_said_deep_inside_it() -> None:
    """All sessions, not the newest 50; matched on what was said (the full-text index), each
    named by a handle no other session shares."""
    turns = []
    for n in range(60):
        turns.append(
            turn(
                f"0000aaaa-{n:04d}",
                "a",
                0,
                f"task number {n}",
                ts=f"2026-03-{1 + n % 28:02d}T10:00:00Z",
            )
        )
    deep = [turn("0000aaaa-deep", f"d{i}", i, f"routine step {i}") for i in range(40)]
    deep.append(
        turn("0000aaaa-deep", "d40", 40, "switch the build backend to hatchling", role="assistant")
    )
    build_memory(turns + deep)
    store = open_memory(None).store
    sessions = list_sessions(limit=0)
    assert len(sessions) == 61
    picker = Picker(sessions, search=lambda query: sessions_saying(store, query))
    for char in "hatchling":
        picker.key(char)
    assert [s.session_id for s in picker.shown] == ["0000aaaa-deep"]
    assert picker.said == {"0000aaaa-deep": 1}
    handles = [s.handle for s in sessions]
    assert len(set(handles)) == len(handles) and all(len(h) > 8 for h in handles)
    assert f" {picker.shown[0].handle} [1×] " in picker.line(picker.shown[0], 200)


def _terminal_sessions(keys: list[bytes]) -> tuple[int, bytes]:
    with funes_in_a_terminal("sessions") as terminal:
        terminal.read(b"Enter resume")  # the help line is drawn
        terminal.type(keys)
        code = terminal.exit_code()
    return code, terminal.screen


def test_enter_resumes_the_chosen_session_with_the_resume_code() -> None:
    _memory()
    code, screen = _terminal_sessions([b"cart", b"\x1b[B", b"\r"])
    assert b"bbbb2222-y" in screen  # previewed: the first match, before moving
    tail = screen.rsplit(b"\x1b[?1049l", 1)[-1]  # what is printed after the picker closes
    # Enter asked `funes resume`'s plan for the session: codex is not installed in this test's
    # PATH and /srv/cart does not exist, so it says why and prints the command to run.
    assert code == 1
    assert b"cannot resume: codex is not on PATH" in tail
    # Its transcript is not on this machine: the command continues it from the memory's
    # catch-up (funes.inspect.resume_gone), which names the session.
    assert b"cccc3333" in tail and b"codex" in tail


def test_esc_cancels_the_picker() -> None:
    _memory()
    code, screen = _terminal_sessions([b"\x1b"])
    assert code == 0
    tail = screen.rsplit(b"\x1b[?1049l", 1)[-1]
    assert b"cancelled" in tail and b"funes resume" not in tail

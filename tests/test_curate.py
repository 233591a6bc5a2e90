"""`funes curate` without the Hub: candidates, the decisions file, the review keys, stale
sessions. (Publishing is tested against the loopback Hub in test_project_memory.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_project_memory import PROJECT, WIDGET_SESSIONS, add_repo_sessions

from funes.index.store import ChunkStore
from funes.project.curate import (
    CurateError,
    candidates,
    check_project,
    load_decisions,
    publishable,
)
from funes.project.review import Review

URI = "hf://datasets/alice/widgets-memory"


def _review() -> Review:
    decisions = load_decisions(URI)
    decisions.project = PROJECT
    return Review(candidates(ChunkStore.open(), PROJECT, decisions), decisions)


def test_arrow_keys_decide_and_every_decision_is_saved_at_once() -> None:
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    review = _review()
    order = [c.session_id for c in review.candidates]
    review.key("right")  # include the first
    review.key("down")
    review.key("left")  # exclude the second
    review.key("down")
    review.key("right")
    review.key("right")  # the same arrow again: back to pending
    review.key("down")  # past the end: stays on the last
    assert review.cursor == 2 and review.counts() == (1, 1, 1)

    saved = load_decisions(URI)  # what a quit right now would leave
    assert saved.project == PROJECT
    assert set(saved.include) == {order[0]} and saved.exclude == {order[1]}
    text = saved.path.read_text()
    assert f"include {order[0]} 2" in text and "# 2026-01-01" in text
    review.key("enter")
    assert review.done


def test_only_included_sessions_are_publishable_and_growth_holds_them_back() -> None:
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    store = ChunkStore.open()
    review = _review()
    cache = next(i for i, c in enumerate(review.candidates) if c.session_id == "sess-cache")
    review.cursor = cache
    review.key("right")
    ids, pending = publishable(store, PROJECT, load_decisions(URI))
    assert len(ids) == 2 and {c.session_id for c in pending} == {"sess-render", "sess-salary"}

    add_repo_sessions({"sess-cache": [*WIDGET_SESSIONS["sess-cache"], "One more turn."]}, PROJECT)
    ids, pending = publishable(ChunkStore.open(), PROJECT, load_decisions(URI))
    assert ids == set() and "sess-cache" in {c.session_id for c in pending}
    [grown] = [c for c in pending if c.session_id == "sess-cache"]
    assert grown.stale and grown.chunks == 3 and grown.reviewed_chunks == 2


def test_a_hand_edited_decisions_file_is_read_and_bad_lines_are_reported(tmp_path: Path) -> None:
    decisions = load_decisions(URI)
    decisions.path.parent.mkdir(parents=True, exist_ok=True)
    decisions.path.write_text(
        f"project {PROJECT}\ninclude sess-cache   # legacy: no count, never stale\n"
        "exclude sess-salary\nmaybe sess-render\n"
    )
    again = load_decisions(URI)
    assert again.include == {"sess-cache": None} and again.exclude == {"sess-salary"}
    assert again.skipped == ["maybe sess-render"]


def test_a_project_is_an_owner_name_identity() -> None:
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    assert check_project(" acme/widgets/ ", None) == PROJECT
    with pytest.raises(CurateError, match="did you mean acme/widgets"):
        check_project("widgets", ChunkStore.open())


def test_the_terminal_review_decides_with_arrow_keys(tmp_path: Path) -> None:
    """The curses list in a real pseudo-terminal: → includes, ↓ moves, ← excludes, Enter ends,
    then it offers to push (declined here)."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    order = [c.session_id for c in _review().candidates]  # newest first, as the list shows
    primary, secondary = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100", "LINES": "20", "HF_HUB_OFFLINE": "1"}
    env.pop("FUNES_NO_TUI", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "funes.cli", "curate", URI, "--project", PROJECT],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env,
        close_fds=True,
    )
    os.close(secondary)
    screen = b""

    def read_until(marker: bytes, timeout: float = 60.0) -> None:
        nonlocal screen
        deadline = time.monotonic() + timeout
        while marker not in screen and time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.2)
            if ready:
                try:
                    screen += os.read(primary, 65536)
                except OSError:
                    break
        assert marker in screen, screen[-2000:]

    read_until(b"pending")  # the help line is drawn
    for key in (b"\x1b[C", b"\x1b[B", b"\x1b[D", b"\r"):  # → ↓ ← Enter
        os.write(primary, key)
        time.sleep(0.3)
    read_until(b"Publish 1 session(s)")
    os.write(primary, b"n\r")
    child.wait(timeout=60)
    os.close(primary)
    saved = load_decisions(URI)
    assert set(saved.include) == {order[0]} and saved.exclude == {order[1]}


def test_listed_sessions_are_named_so_include_takes_them_as_printed() -> None:
    from click.testing import CliRunner

    from funes.cli import main

    shared = {"sess-widget-a1": ["Widget A question?", "Answer A."]}
    shared["sess-widget-b2"] = ["Widget B question?", "Answer B."]
    add_repo_sessions(shared, PROJECT)
    listed = CliRunner().invoke(main, ["curate", "alice/widgets-memory", "--project", PROJECT])
    assert listed.exit_code == 0, listed.output
    assert " sess-widget-a  " in listed.output and " sess-widget-b  " in listed.output
    refused = CliRunner().invoke(main, ["curate", "alice/widgets-memory", "--include", "sess-wid"])
    assert refused.exit_code == 1
    assert "matches 2 sessions: sess-widget-a, sess-widget-b; give one" in refused.output
    taken = CliRunner().invoke(
        main, ["curate", "alice/widgets-memory", "--include", "sess-widget-b"]
    )
    assert taken.exit_code == 0, taken.output
    [chosen] = [c for c in _review().candidates if c.decision == "include"]
    assert chosen.session_id == "sess-widget-b2"

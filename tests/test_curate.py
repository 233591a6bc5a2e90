"""`funes curate` without the Hub: candidates, the decisions file, the review keys, stale
sessions. (Publishing is tested against the loopback Hub in test_project_memory.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from terminal_fixtures import funes_in_a_terminal
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


def test_arrow_keys_decide_and_enter_saves_the_decisions() -> None:
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
    assert load_decisions(URI).include == {}  # nothing saved before Enter
    review.key("enter")
    assert review.done and not review.cancelled

    saved = load_decisions(URI)
    assert saved.project == PROJECT
    assert set(saved.include) == {order[0]} and saved.exclude == {order[1]}
    text = saved.path.read_text()
    assert f"include {order[0]} 2" in text and "# 2026-01-01" in text


@pytest.mark.parametrize("key", ["q", "esc"])
def test_q_or_esc_cancels_the_review_and_keeps_the_file_as_it_was(key: str) -> None:
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    first = _review()
    first.key("right")
    first.key("enter")
    before = load_decisions(URI).path.read_text()
    review = _review()
    review.key("left")  # exclude what was included
    review.key("down")
    review.key("right")
    review.key(key)
    assert review.done and review.cancelled
    assert load_decisions(URI).path.read_text() == before


def test_only_included_sessions_are_publishable_and_growth_holds_them_back() -> None:
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    store = ChunkStore.open()
    review = _review()
    cache = next(i for i, c in enumerate(review.candidates) if c.session_id == "sess-cache")
    review.cursor = cache
    review.key("right")
    review.key("enter")
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


def _terminal_curate(keys: list[bytes], answer: bytes | None, extra: tuple[str, ...] = ()) -> bytes:
    """`funes curate` in a real pseudo-terminal: send `keys` once the list is drawn, then
    `answer` to the publish question (None: expect no question); return everything shown."""
    with funes_in_a_terminal("curate", URI, "--project", PROJECT, *extra, lines=20) as terminal:
        terminal.read(b"pending")  # the help line is drawn
        terminal.type(keys)
        if answer is not None:
            terminal.read(b"[y/N]")
            terminal.type([answer])
        terminal.exit_code()
    return terminal.screen


def test_the_terminal_review_decides_with_arrow_keys_and_publishing_defaults_to_no() -> None:
    """→ includes, ↓ moves, ← excludes, Enter saves, then the offer to push: a bare Enter
    answers no."""
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    order = [c.session_id for c in _review().candidates]  # newest first, as the list shows
    screen = _terminal_curate([b"\x1b[C", b"\x1b[B", b"\x1b[D", b"\r"], answer=b"\r")
    assert b"Publish 1 session(s)" in screen and b"Publishing" not in screen
    saved = load_decisions(URI)
    assert set(saved.include) == {order[0]} and saved.exclude == {order[1]}


@pytest.mark.parametrize("cancel", [b"q", b"\x1b", b"\x03"], ids=["q", "esc", "ctrl-c"])
def test_the_terminal_review_cancelled_changes_nothing(cancel: bytes) -> None:
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    before = load_decisions(URI)
    screen = _terminal_curate([b"\x1b[C", b"\x1b[B", b"\x1b[D", cancel], answer=None)
    assert b"cancelled: no decision changed" in screen
    assert b"Publish" not in screen
    after = load_decisions(URI)
    assert (after.include, after.exclude) == (before.include, before.exclude) == ({}, set())


def test_the_same_session_included_and_excluded_is_refused() -> None:
    from click.testing import CliRunner

    from funes.cli import main

    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    args = ["curate", URI, "--project", PROJECT, "--include", "sess-cache"]
    out = CliRunner().invoke(main, [*args, "--exclude", "sess-cac"])
    assert out.exit_code == 1
    assert "sess-cac is given to both --include and --exclude: pick one" in out.output
    assert load_decisions(URI).include == {}


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

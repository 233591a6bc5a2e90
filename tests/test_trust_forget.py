"""`funes forget` always forgets, or changes nothing: it waits for a running index instead of
failing half-way, leaves no tombstone for a session that is not there, and afterwards nothing of
the session is left anywhere under FUNES_HOME (resume points and old Lance files included)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from trust_fixtures import (
    FUNES,
    claude_transcript,
    files_holding,
    funes,
    stored_texts,
    writer_lock_held_elsewhere,
)

from funes.index.lock import LockBusy, lock_path
from funes.inspect.checks_local import lock_holder
from funes.paths import funes_home

CORPUS_CLAUDE = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude"


def tombstones() -> list[Path]:
    return sorted((funes_home() / "forgotten").glob("*.json"))


def test_forget_of_a_session_nobody_has_fails_and_leaves_no_tombstone() -> None:
    claude_transcript("real-session", ["the QUOKKAPLAN is ready", "shipping it"])
    assert funes("index", "--all").returncode == 0

    missing = funes("forget", "--session", "deadbeef", "--yes")
    assert missing.returncode == 1, missing.stdout
    assert "no session 'deadbeef'" in missing.stderr and "nothing was forgotten" in missing.stderr
    assert tombstones() == []
    assert any("QUOKKAPLAN" in t for t in stored_texts())


def test_after_forget_nothing_of_the_session_remains_under_funes_home() -> None:
    # The open (last) turn of a transcript is what its resume point carries.
    claude_transcript("sess-gone", ["Why does the WOMBATQUEUE stall?", "WOMBATQUEUE lacks acks"])
    claude_transcript("sess-kept", ["Why is the ZEBRAWIDGET slow?", "ZEBRAWIDGET lacks an index"])
    assert funes("index", "--all").returncode == 0
    home = funes_home()
    assert files_holding(home, "wombatqueu")  # memory and resume points hold it

    done = funes("forget", "--session", "sess-gone", "--yes")
    assert done.returncode == 0, done.stderr
    assert files_holding(home, "wombatqueu") == []
    assert any("ZEBRAWIDGET" in t for t in stored_texts())

    # The transcript grows: it is read again from its start, and the forgotten turns stay out.
    claude_transcript(
        "sess-gone",
        ["Why does the WOMBATQUEUE stall?", "WOMBATQUEUE lacks acks", "WOMBATQUEUE again"],
    )
    assert funes("index", "--all").returncode == 0
    assert files_holding(home, "wombatqueu") == []


def test_forget_while_an_index_runs_waits_for_it_and_finishes() -> None:
    if not CORPUS_CLAUDE.is_dir():
        pytest.fail(f"the shared corpus is missing at {CORPUS_CLAUDE}")
    turns = ["the KOALAMIGRATION plan", "KOALAMIGRATION is staged"]
    transcript = claude_transcript("sess-during", turns)
    assert funes("index", "--all").returncode == 0
    # The session goes on while a large index runs: that run stores its new turn too.
    claude_transcript("sess-during", [*turns, "KOALAMIGRATION rolled back"])

    running = subprocess.Popen(
        [*FUNES, "index", str(transcript.parent), str(CORPUS_CLAUDE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 60
        while not lock_holder(lock_path())[0]:
            assert running.poll() is None and time.monotonic() < deadline, running.stderr
            time.sleep(0.05)
        time.sleep(0.5)
        forgot = funes("forget", "--session", "sess-during", "--yes")
    finally:
        _out, err = running.communicate(timeout=300)
    assert running.returncode == 0, err
    assert forgot.returncode == 0, forgot.stderr
    assert len(tombstones()) == 1
    assert not any("KOALAMIGRATION" in t for t in stored_texts())
    assert len(stored_texts()) > 1000  # the index run's rows are all there
    recalled = funes("recall", "KOALAMIGRATION", "--format", "agent")
    assert recalled.returncode == 0 and "KOALAMIGRATION" not in recalled.stdout


def test_forget_that_cannot_get_the_writer_lock_changes_nothing() -> None:
    from funes.project.forget import forget

    claude_transcript("sess-held", ["the PLATYPUSDEPLOY runbook", "PLATYPUSDEPLOY done"])
    assert funes("index", "--all").returncode == 0
    with writer_lock_held_elsewhere(), pytest.raises(LockBusy):
        forget(session="sess-held", lock_wait_s=0.5)
    assert tombstones() == []
    assert any("PLATYPUSDEPLOY" in t for t in stored_texts())

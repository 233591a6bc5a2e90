"""`funes forget --session` follows the sessions that came out of it to any depth (a Hermes
compression chain s1 ← s2 ← s3, and an s4 split off after the forget), takes the session out of
the curation notes, and leaves one Lance version with no index folder naming it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from trust_fixtures import files_holding, funes, stored_texts

from funes.paths import funes_home


def hermes_session(session: str, parent: str | None, words: str) -> None:
    """A Hermes session log; `parent`: the session it was compressed from (or delegated by)."""
    folder = Path(os.environ["HERMES_HOME"]) / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    log = {
        "session_id": session,
        "parent_session_id": parent,
        "cwd": "/home/dev/shop",
        "session_start": "2026-01-01T10:00:00Z",
        "messages": [
            {"role": "user", "content": f"Carry on with the {words} plan"},
            {"role": "assistant", "content": f"The {words} plan continues: step two"},
        ],
    }
    (folder / f"session_{session}.json").write_text(json.dumps(log))


def test_forget_follows_a_compression_chain_and_clears_every_trace() -> None:
    hermes_session("chainone", None, "DINGOCHAIN")
    hermes_session("chaintwo", "chainone", "DINGOCHAIN compressed")
    hermes_session("chainthree", "chaintwo", "DINGOCHAIN compressed again")
    hermes_session("unrelated", None, "ZEBRAWIDGET")
    assert funes("index", "--all").returncode == 0
    assert sum("DINGOCHAIN" in t for t in stored_texts()) == 6
    notes = funes_home() / "curation" / "acme--shop.txt"
    notes.parent.mkdir(parents=True)
    notes.write_text(
        "project acme/shop\n"
        "include chainone 2   # 2026-01-01 Carry on with the DINGOCHAIN plan\n"
        "include unrelated 2   # 2026-01-01 Carry on with the ZEBRAWIDGET plan\n"
    )

    done = funes("forget", "--session", "chainone", "--yes")
    assert done.returncode == 0, done.stderr
    assert not any("DINGOCHAIN" in t for t in stored_texts())
    assert any("ZEBRAWIDGET" in t for t in stored_texts())
    recalled = json.loads(funes("recall", "DINGOCHAIN plan", "--json").stdout)
    assert not any("DINGOCHAIN" in hit["text"] for hit in recalled["hits"])
    # The curation notes keep only the other session.
    assert "chainone" not in notes.read_text() and "unrelated" in notes.read_text()
    # The memory: one version, and no file (an index folder no version uses) naming a session.
    table = funes_home() / "memory" / "chunks.lance"
    assert len(list((table / "_versions").glob("*.manifest"))) == 1
    for session in ("chainone", "chaintwo", "chainthree", "dingochain"):
        assert files_holding(funes_home() / "memory", session) == [], session

    # A session split off the forgotten chain later is forgotten with it, turn after turn.
    hermes_session("chainfour", "chainthree", "DINGOCHAIN compressed once more")
    assert funes("index", "--all").returncode == 0
    assert not any("DINGOCHAIN" in t for t in stored_texts())
    log = Path(os.environ["HERMES_HOME"]) / "sessions" / "session_chainfour.json"
    grown = json.loads(log.read_text())
    grown["messages"].append({"role": "user", "content": "and the DINGOCHAIN rollout?"})
    log.write_text(json.dumps(grown))
    assert funes("index", "--all").returncode == 0
    assert not any("DINGOCHAIN" in t for t in stored_texts())

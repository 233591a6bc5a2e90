"""One transcript funes cannot read never stops the memory: a line nested too deeply, a file
deleted while the sweep runs. The rest is indexed, the bad part is named file:line, later runs
go on the same way, and `funes doctor` says what was left out."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from trust_fixtures import claude_transcript, deeply_nested_line, funes, stored_texts

from funes.index.indexer import index

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def test_a_line_nested_too_deeply_is_skipped_and_named_and_the_rest_is_indexed() -> None:
    good = claude_transcript("good-session", ["where is the redis cache configured", "in app.py"])
    bad = claude_transcript("bad-session", ["the migration plan for shard seven", "done"])
    with bad.open("a") as handle:
        handle.write(deeply_nested_line() + "\n")
        handle.write(
            json.dumps(
                {
                    "type": "user",
                    "uuid": "late",
                    "sessionId": "bad-session",
                    "timestamp": "2026-01-01T11:00:00Z",
                    "cwd": "/home/dev/shop",
                    "message": {"role": "user", "content": "after the bad line"},
                }
            )
        )
        handle.write("\n")

    run = funes("index", "--all")
    assert run.returncode == 0, run.stderr
    assert f"{bad}:3: JSON nested too deeply to read; skipped" in run.stderr
    texts = " ".join(stored_texts())
    for words in ("redis cache", "shard seven", "after the bad line"):
        assert words in texts, words
    assert good.exists()

    # Later runs are not stopped either: a new turn after the bad line is stored.
    claude_transcript(
        "good-session",
        ["where is the redis cache configured", "in app.py", "and the session store"],
    )
    again = funes("index", "--all")
    assert again.returncode == 0, again.stderr
    assert "and the session store" in " ".join(stored_texts())

    doctor = json.loads(funes("doctor", "--json").stdout)
    found = {c["name"]: c for c in doctor["checks"]}["unreadable transcripts"]
    assert found["status"] == "warn" and not found["ok"]
    assert f"{bad}:3" in found["detail"]


def test_a_transcript_deleted_while_the_sweep_runs_is_skipped_and_the_run_goes_on() -> None:
    first = claude_transcript("first-session", ["the first transcript says alpha", "ok"])
    doomed = claude_transcript("doomed-session", ["this one is deleted mid-run", "ok"])
    last = claude_transcript("last-session", ["the last transcript says omega", "ok"])

    hermes = Path(os.environ["HERMES_HOME"])
    hermes.mkdir(parents=True)
    shutil.copy(CORPUS / "generated" / "hermes" / "hermes-mcp-state.db", hermes / "state.db")

    def delete_once_listed(event: str, _info: dict) -> None:
        if event == "start":  # the sweep has listed every file; these vanish before they are read
            doomed.unlink()
            (hermes / "state.db").unlink()

    report = index(everything=True, progress=delete_once_listed)
    assert any(f"{doomed}: vanished" in w for w in report.warnings), report.warnings
    assert any(str(hermes / "state.db") in w for w in report.warnings), report.warnings
    texts = " ".join(stored_texts())
    assert "alpha" in texts and "omega" in texts and "deleted mid-run" not in texts
    assert first.exists() and last.exists()

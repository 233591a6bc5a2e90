"""`funes forget` and `<private>` spans, end to end through the CLI: what is forgotten or private
is gone from the memory's files, and re-indexing the transcripts never brings it back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trust_fixtures import claude_transcript, stored_texts

from funes.index.privacy import PRIVATE, strip_private

FUNES = [sys.executable, "-m", "funes.cli"]


def _funes(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [*FUNES, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, env=os.environ
    )
    if check and result.returncode != 0:
        raise AssertionError(f"funes {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def _on_disk(folder: Path, needle: str) -> list[str]:
    """Files under `folder` whose bytes contain `needle`."""
    hits = []
    for path in folder.rglob("*"):
        if path.is_file() and needle.encode() in path.read_bytes():
            hits.append(str(path.relative_to(folder)))
    return hits


def test_private_spans_are_replaced_and_the_rest_is_kept() -> None:
    assert strip_private("deploy <private>hunter2</private> now") == f"deploy {PRIVATE} now"
    assert strip_private("a <PRIVATE>x\ny</Private> b <private>z</private>") == (
        f"a {PRIVATE} b {PRIVATE}"
    )
    # A tag never closed hides the rest: a forgotten close tag must not leak the secret.
    assert strip_private("keep this <private>my card 4111 and more") == f"keep this {PRIVATE}"
    assert strip_private("no tags at all") == "no tags at all"


def test_a_private_span_in_a_prompt_is_never_stored(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    claude_transcript(
        "sess-private",
        [
            "Use the staging card <private>4111-1111-1111-1111 exp 09/31</private> to test "
            "the checkout flow",
            "Checkout flow tested against staging; the payment step passes.",
        ],
        "/work/shop",
    )
    _funes("index", str(claude / "projects"))
    texts = stored_texts()
    prompt = next(t for t in texts if "checkout flow" in t and "staging card" in t)
    assert prompt == f"Use the staging card {PRIVATE} to test the checkout flow"
    home = Path(os.environ["FUNES_HOME"])
    assert _on_disk(home, "4111-1111") == []
    recalled = _funes("recall", "staging card checkout", "--json").stdout
    assert "4111" not in recalled and PRIVATE in recalled


def test_forget_a_session_removes_its_bytes_and_reindexing_never_restores_it(
    tmp_path: Path,
) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    home = Path(os.environ["FUNES_HOME"])
    gone = claude_transcript(
        "sess-forget-me",
        ["Why is the QUAGGAWIDGET leaking memory?", "The QUAGGAWIDGET cache never evicts."],
        "/work/shop",
    )
    claude_transcript(
        "sess-keep-me",
        ["Why is the ZEBRAWIDGET slow?", "The ZEBRAWIDGET query lacks an index."],
        "/work/shop",
    )
    _funes("index", str(claude / "projects"))
    assert _on_disk(home / "memory", "QUAGGAWIDGET")

    # Not on a terminal and no --yes: refused, nothing changed.
    refused = _funes("forget", "--session", "sess-forget", check=False)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert any("QUAGGAWIDGET" in t for t in stored_texts())

    out = _funes("forget", "--session", "sess-forget", "--yes", "--json").stdout
    report = json.loads(out)
    assert report["sessions"] == ["sess-forget-me"] and report["chunks"] == 2
    assert not any("QUAGGAWIDGET" in t for t in stored_texts())
    assert any("ZEBRAWIDGET" in t for t in stored_texts())
    # Gone from every file of the memory: data, full-text index, older versions.
    assert _on_disk(home / "memory", "QUAGGAWIDGET") == []
    recalled = _funes("recall", "QUAGGAWIDGET", "--format", "agent").stdout
    assert "QUAGGAWIDGET" not in recalled and "sess-forget" not in recalled

    # The transcript grows and the index state is lost: a full re-read stores nothing of it.
    with gone.open("a") as handle:
        handle.write(
            json.dumps(
                {
                    "type": "user",
                    "uuid": "late",
                    "parentUuid": "sess-forget-me-u1",
                    "sessionId": "sess-forget-me",
                    "timestamp": "2026-01-01T11:00:00Z",
                    "cwd": "/work/shop",
                    "message": {"role": "user", "content": "QUAGGAWIDGET again"},
                }
            )
            + "\n"
        )
    (home / "state.json").unlink()
    _funes("index", str(claude / "projects"))
    assert not any("QUAGGAWIDGET" in t for t in stored_texts())
    assert any("ZEBRAWIDGET" in t for t in stored_texts())


def test_forget_a_project_also_keeps_its_future_sessions_out(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    client = tmp_path / "clients" / "acme"
    claude_transcript("sess-acme-1", ["ACMEPLAN pricing", "ACMEPLAN draft"], str(client))
    claude_transcript("sess-acme-2", ["ACMEAPI auth", "ACMEAPI done"], str(client / "api"))
    claude_transcript("sess-own", ["OWNWORK refactor", "OWNWORK merged"], "/work/own")
    _funes("index", str(claude / "projects"))

    report = json.loads(_funes("forget", "--project", str(client), "--yes", "--json").stdout)
    assert sorted(report["sessions"]) == ["sess-acme-1", "sess-acme-2"]
    texts = " ".join(stored_texts())
    assert "ACME" not in texts and "OWNWORK" in texts

    # A later session in that folder is not indexed; one elsewhere is.
    claude_transcript("sess-acme-3", ["ACMENEW kickoff", "ACMENEW notes"], str(client), day=5)
    claude_transcript("sess-own-2", ["OWNNEW idea", "OWNNEW plan"], "/work/own", day=5)
    _funes("index", str(claude / "projects"))
    texts = " ".join(stored_texts())
    assert "ACME" not in texts and "OWNNEW" in texts


def test_forget_before_a_date_and_dry_run_changes_nothing(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    claude_transcript("sess-old", ["OLDTOPIC start", "OLDTOPIC end"], "/work/a", day=1)
    claude_transcript("sess-new", ["NEWTOPIC start", "NEWTOPIC end"], "/work/a", day=9)
    _funes("index", str(claude / "projects"))

    dry = _funes("forget", "--before", "2026-01-05", "--dry-run").stdout
    assert "would forget 2 chunk(s) from 1 session(s)" in dry and "sess-old" in dry
    assert "OLDTOPIC" in " ".join(stored_texts())

    _funes("forget", "--before", "2026-01-05", "--yes")
    texts = " ".join(stored_texts())
    assert "OLDTOPIC" not in texts and "NEWTOPIC" in texts
    (Path(os.environ["FUNES_HOME"]) / "state.json").unlink()  # a full re-read
    _funes("index", str(claude / "projects"))
    assert "OLDTOPIC" not in " ".join(stored_texts())


def test_forget_needs_exactly_one_criterion_and_a_known_memory(tmp_path: Path) -> None:
    none = _funes("forget", "--yes", check=False)
    assert none.returncode != 0 and "exactly one of" in none.stderr
    two = _funes("forget", "--session", "a", "--before", "7d", "--yes", check=False)
    assert two.returncode != 0 and "exactly one of" in two.stderr
    bad = _funes("forget", "--before", "someday", "--yes", check=False)
    assert bad.returncode != 0 and "Error" in bad.stderr
    missing = _funes("forget", "--session", "x", "--memory", str(tmp_path / "nope"), check=False)
    assert missing.returncode != 0 and "no memory at" in missing.stderr


@pytest.fixture(autouse=True)
def _no_second_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")

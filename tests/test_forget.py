"""`funes forget` and `<private>` spans, end to end through the CLI: what is forgotten or private
is gone from the memory's files, and re-indexing the transcripts never brings it back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from funes.index.privacy import PRIVATE, strip_private

FUNES = [sys.executable, "-m", "funes.cli"]


def _transcript(claude: Path, cwd: str, session: str, turns: list[str], day: int = 1) -> Path:
    """A Claude Code transcript: alternating user/assistant turns, all on 2026-01-<day>."""
    path = claude / "projects" / cwd.replace("/", "-") / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines, parent = [], None
    for i, text in enumerate(turns):
        role = "user" if i % 2 == 0 else "assistant"
        uuid = f"{session}-u{i}"
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(
            json.dumps(
                {
                    "type": role,
                    "uuid": uuid,
                    "parentUuid": parent,
                    "sessionId": session,
                    "timestamp": f"2026-01-{day:02d}T10:00:{i:02d}Z",
                    "cwd": cwd,
                    "message": {"role": role, "content": content},
                }
            )
        )
        parent = uuid
    path.write_text("\n".join(lines) + "\n")
    return path


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


def _stored_texts() -> list[str]:
    from funes.index.store import ChunkStore

    return ChunkStore.open().scan(["text"]).column("text").to_pylist()


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
    _transcript(
        claude,
        "/work/shop",
        "sess-private",
        [
            "Use the staging card <private>4111-1111-1111-1111 exp 09/31</private> to test "
            "the checkout flow",
            "Checkout flow tested against staging; the payment step passes.",
        ],
    )
    _funes("index", str(claude / "projects"))
    texts = _stored_texts()
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
    gone = _transcript(
        claude,
        "/work/shop",
        "sess-forget-me",
        ["Why is the QUAGGAWIDGET leaking memory?", "The QUAGGAWIDGET cache never evicts."],
    )
    _transcript(
        claude,
        "/work/shop",
        "sess-keep-me",
        ["Why is the ZEBRAWIDGET slow?", "The ZEBRAWIDGET query lacks an index."],
    )
    _funes("index", str(claude / "projects"))
    assert _on_disk(home / "memory", "QUAGGAWIDGET")

    # Not on a terminal and no --yes: refused, nothing changed.
    refused = _funes("forget", "--session", "sess-forget", check=False)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert any("QUAGGAWIDGET" in t for t in _stored_texts())

    out = _funes("forget", "--session", "sess-forget", "--yes", "--json").stdout
    report = json.loads(out)
    assert report["sessions"] == ["sess-forget-me"] and report["chunks"] == 2
    assert not any("QUAGGAWIDGET" in t for t in _stored_texts())
    assert any("ZEBRAWIDGET" in t for t in _stored_texts())
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
    assert not any("QUAGGAWIDGET" in t for t in _stored_texts())
    assert any("ZEBRAWIDGET" in t for t in _stored_texts())


def test_forget_a_project_also_keeps_its_future_sessions_out(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    client = tmp_path / "clients" / "acme"
    _transcript(claude, str(client), "sess-acme-1", ["ACMEPLAN pricing", "ACMEPLAN draft"])
    _transcript(claude, str(client / "api"), "sess-acme-2", ["ACMEAPI auth", "ACMEAPI done"])
    _transcript(claude, "/work/own", "sess-own", ["OWNWORK refactor", "OWNWORK merged"])
    _funes("index", str(claude / "projects"))

    report = json.loads(_funes("forget", "--project", str(client), "--yes", "--json").stdout)
    assert sorted(report["sessions"]) == ["sess-acme-1", "sess-acme-2"]
    texts = " ".join(_stored_texts())
    assert "ACME" not in texts and "OWNWORK" in texts

    # A later session in that folder is not indexed; one elsewhere is.
    _transcript(claude, str(client), "sess-acme-3", ["ACMENEW kickoff", "ACMENEW notes"], day=5)
    _transcript(claude, "/work/own", "sess-own-2", ["OWNNEW idea", "OWNNEW plan"], day=5)
    _funes("index", str(claude / "projects"))
    texts = " ".join(_stored_texts())
    assert "ACME" not in texts and "OWNNEW" in texts


def test_forget_before_a_date_and_dry_run_changes_nothing(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    _transcript(claude, "/work/a", "sess-old", ["OLDTOPIC start", "OLDTOPIC end"], day=1)
    _transcript(claude, "/work/a", "sess-new", ["NEWTOPIC start", "NEWTOPIC end"], day=9)
    _funes("index", str(claude / "projects"))

    dry = _funes("forget", "--before", "2026-01-05", "--dry-run").stdout
    assert "would forget 2 chunk(s) from 1 session(s)" in dry and "sess-old" in dry
    assert "OLDTOPIC" in " ".join(_stored_texts())

    _funes("forget", "--before", "2026-01-05", "--yes")
    texts = " ".join(_stored_texts())
    assert "OLDTOPIC" not in texts and "NEWTOPIC" in texts
    (Path(os.environ["FUNES_HOME"]) / "state.json").unlink()  # a full re-read
    _funes("index", str(claude / "projects"))
    assert "OLDTOPIC" not in " ".join(_stored_texts())


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

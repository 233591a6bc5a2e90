"""Indexing: incremental, idempotent, crash-safe, one writer at a time, redacted, model-pinned."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from funes.index.indexer import index
from funes.index.lock import LockBusy, writer_lock
from funes.index.store import ChunkStore, ModelMismatch
from funes.paths import local_memory_dir

FUNES = [sys.executable, "-m", "funes.cli"]


def stored_ids() -> list[str]:
    return ChunkStore.open().scan(["id"]).column("id").to_pylist()


def _claude_layout(root: Path, source: Path, lines: list[str] | None = None) -> Path:
    """Place a transcript where Claude Code keeps it: <root>/projects/<project>/."""
    target = root / "projects" / "-work-demo" / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if lines is None:
        shutil.copy(source, target)
    else:
        target.write_text("".join(lines))
    return target


def test_indexing_the_same_history_twice_adds_nothing(corpus: Path) -> None:
    fixtures = corpus / "funes-fixtures"
    first = index([fixtures])
    assert first.chunks_added > 0
    assert first.sessions  # every fixture yields sessions
    ids = stored_ids()
    assert len(ids) == len(set(ids)) == first.chunks_added
    second = index([fixtures])
    assert second.chunks_added == 0
    assert stored_ids() == ids or sorted(stored_ids()) == sorted(ids)


def test_a_growing_transcript_is_read_incrementally_and_matches_a_single_read(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = corpus / "funes-fixtures" / "claude_session.jsonl"
    lines = source.read_text().splitlines(keepends=True)
    claude_root = tmp_path / "claude"
    target = _claude_layout(claude_root, source, lines[: len(lines) // 2])
    # Leave a half-written line at the end, as an agent mid-write would.
    with target.open("a") as handle:
        handle.write(lines[len(lines) // 2][:20])
    index([target])
    partial = set(stored_ids())
    assert partial
    target.write_text("".join(lines))
    grown = index([target])
    assert grown.chunks_added > 0
    incremental = stored_ids()
    assert len(incremental) == len(set(incremental))

    monkeypatch.setenv("FUNES_HOME", str(tmp_path / "fresh-home"))
    index([target])
    assert set(stored_ids()) == set(incremental)
    assert partial < set(incremental)


def test_a_rewritten_transcript_is_detected_and_reread(corpus: Path, tmp_path: Path) -> None:
    source = corpus / "funes-fixtures" / "claude_session.jsonl"
    target = _claude_layout(tmp_path / "claude", source)
    index([target])
    before = set(stored_ids())
    lines = source.read_text().splitlines(keepends=True)
    target.write_text("".join(lines[:3]))  # truncated: shorter than the recorded offset
    index([target])
    target.write_text("".join(lines))  # and back: everything is known, nothing duplicated
    index([target])
    after = stored_ids()
    assert set(after) == before
    assert len(after) == len(set(after))


def test_secrets_are_redacted_before_they_are_stored(tmp_path: Path) -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"  # built at runtime: no credential literal in the repo
    record = {
        "type": "user",
        "uuid": "u-1",
        "parentUuid": None,
        "sessionId": "sess-secret",
        "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/work/demo",
        "message": {"role": "user", "content": f"deploy with aws key {key} please"},
    }
    target = tmp_path / "claude" / "projects" / "-work-demo" / "sess-secret.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(record) + "\n")
    report = index([target])
    assert report.redactions >= 1
    texts = ChunkStore.open().scan(["text"]).column("text").to_pylist()
    assert texts and not any(key in t for t in texts)
    assert any("[REDACTED:" in t for t in texts)


def test_a_memory_built_with_another_model_is_refused_with_how_to_rebuild(corpus: Path) -> None:
    index([corpus / "funes-fixtures"])
    from funes.index.embed import load_embedder

    real = load_embedder()

    class OtherModel:
        model_id = "another-model"
        content_hash = "0" * 64
        dim = real.dim

    with pytest.raises(ModelMismatch, match="rebuild"):
        ChunkStore.open(local_memory_dir(), embedder=OtherModel())


def test_a_second_writer_waits_then_gives_up_clearly() -> None:
    with writer_lock():
        started = time.monotonic()
        with pytest.raises(LockBusy, match="another funes process"), writer_lock(wait_s=0.3):
            pass
        assert time.monotonic() - started >= 0.3


def test_a_budgeted_sweep_leaves_a_backlog_that_the_next_run_finishes(
    corpus: Path, tmp_path: Path
) -> None:
    projects = corpus / "claude" / "daaain__claude-code-log__real_projects"
    shutil.copytree(projects, tmp_path / "claude" / "projects")
    first = index(budget_s=1e-9)  # stops after the first file it reads
    assert first.units_read == 1
    assert first.backlog
    rest = index(everything=True)
    assert rest.units_read >= len(first.backlog) - 1
    assert index(everything=True).chunks_added == 0
    ids = stored_ids()
    assert len(ids) == len(set(ids))


def test_a_killed_run_leaves_a_readable_memory_and_the_next_run_completes_it(
    corpus: Path, tmp_path: Path
) -> None:
    target = corpus / "pi"
    env = {**os.environ}
    # Reference: a clean run in its own home.
    env_ref = {**env, "FUNES_HOME": str(tmp_path / "ref")}
    subprocess.run(
        [*FUNES, "index", str(target)],
        env=env_ref,
        check=True,
        capture_output=True,
    )
    for delay in (0.8, 1.6, 2.4):
        proc = subprocess.Popen([*FUNES, "index", str(target)], env=env)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if local_memory_dir().exists():
            stored_ids()  # readable after the kill
    subprocess.run(
        [*FUNES, "index", str(target)],
        env=env,
        check=True,
        capture_output=True,
    )
    ids = stored_ids()
    assert len(ids) == len(set(ids))
    os.environ["FUNES_HOME"], saved = str(tmp_path / "ref"), os.environ["FUNES_HOME"]
    try:
        reference = stored_ids()
    finally:
        os.environ["FUNES_HOME"] = saved
    assert set(ids) == set(reference)


def test_concurrent_writers_never_duplicate(corpus: Path) -> None:
    target = corpus / "funes-fixtures"
    procs = [
        subprocess.Popen([*FUNES, "index", str(target)], stderr=subprocess.PIPE) for _ in range(3)
    ]
    for proc in procs:
        proc.wait(timeout=300)
    ids = stored_ids()
    assert ids and len(ids) == len(set(ids))


def test_status_counts_sessions_turns_and_chunks_per_agent(corpus: Path) -> None:
    index([corpus / "funes-fixtures"])
    out = subprocess.run(
        [*FUNES, "status", "--json"], capture_output=True, text=True, check=True
    ).stdout
    info = json.loads(out)
    assert info["exists"] and info["chunks"] == len(stored_ids())
    assert set(info["agents"]) == {"claude_code", "codex", "pi"}
    assert all(a["sessions"] == 1 and a["turns"] > 0 for a in info["agents"].values())
    assert info["model"]["id"]


def test_a_deleted_memory_is_rebuilt_in_full_even_if_its_state_survived(corpus: Path) -> None:
    fixtures = corpus / "funes-fixtures"
    first = index([fixtures])
    shutil.rmtree(local_memory_dir())
    again = index([fixtures])
    assert again.chunks_added == first.chunks_added
    assert sorted(stored_ids()) == sorted(set(stored_ids()))


def test_a_memory_keeps_the_model_it_was_created_with(corpus: Path, tmp_path: Path) -> None:
    from funes.index.embed import BUNDLED_MODEL_DIR

    other_model = tmp_path / "my-static-model"
    shutil.copytree(BUNDLED_MODEL_DIR, other_model)
    index([corpus / "funes-fixtures" / "pi_session.jsonl"], model=str(other_model))
    assert ChunkStore.open().model_id == str(other_model)
    # Later runs use the memory's own model without being told.
    index([corpus / "funes-fixtures" / "codex_session.jsonl"])
    assert ChunkStore.open().model_id == str(other_model)
    result = subprocess.run(
        [*FUNES, "index", "--model", "funes-minilm-l6-static-256", str(corpus / "funes-fixtures")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "move" in result.stderr and "--model" in result.stderr


def test_a_hub_model_that_is_not_cached_is_a_one_line_error(corpus: Path) -> None:
    result = subprocess.run(
        [*FUNES, "index", "--model", "minishlab/potion-retrieval-32M", str(corpus / "pi")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "not in the local Hugging Face cache" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("memory_before", ["empty", "holding another session"])
def test_a_session_in_two_files_is_stored_once_within_one_run(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_before: str
) -> None:
    fixtures = corpus / "funes-fixtures"
    if memory_before != "empty":
        index([fixtures / "codex_session.jsonl"])
    before = len(stored_ids()) if memory_before != "empty" else 0
    source = fixtures / "claude_session.jsonl"
    first = _claude_layout(tmp_path / "a", source)
    second = _claude_layout(tmp_path / "b", source)
    # Every unit flushed on its own: the copy is checked against rows this run already wrote.
    monkeypatch.setattr("funes.index.indexer.FLUSH_CHUNKS", 1)
    report = index([first, second])
    ids = stored_ids()
    assert len(ids) == len(set(ids)) == before + report.chunks_added
    assert report.chunks_known == report.chunks_added > 0

"""Storage that costs what the work costs: a turn appends and is searchable at once, upkeep is
amortised and bounded, and a kill at any point is repaired by the next run with nothing lost and
nothing doubled."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from funes.index import maintenance
from funes.index.indexer import index
from funes.index.maintenance import folder_bytes, health
from funes.index.store import ChunkStore
from funes.paths import local_memory_dir
from funes.retrieve import recall

CLAUDE_PROJECT = "claude/daaain__claude-code-log__real_projects/-src-deep-manifest"


@pytest.fixture
def history(corpus: Path, tmp_path: Path) -> Path:
    """A copy of one real Claude Code project folder (a few thousand chunks)."""
    target = tmp_path / "history"
    shutil.copytree(corpus / CLAUDE_PROJECT, target)
    return target


def _funes(*args: str, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop(maintenance.CRASH_ENV, None)
    if crash_at:
        env[maintenance.CRASH_ENV] = crash_at
    return subprocess.run(
        [sys.executable, "-m", "funes.entry", *args], env=env, capture_output=True, text=True
    )


def _ids() -> list[str]:
    store = ChunkStore.open(local_memory_dir())
    return store.scan(["id"]).column("id").to_pylist()


def _append_exchange(folder: Path, marker: str) -> Path:
    """One more exchange in a new session of the project, as Claude Code writes it."""
    session = f"0000{marker[-8:]}-1111-2222-3333-444455556666"
    path = folder / f"{session}.jsonl"
    base = {"sessionId": session, "cwd": "/work/app", "timestamp": "2026-11-01T10:00:00.000Z"}
    records = [
        {
            **base,
            "type": "user",
            "uuid": f"u-{marker}",
            "parentUuid": None,
            "message": {"role": "user", "content": f"why does the {marker} job time out?"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": f"a-{marker}",
            "parentUuid": f"u-{marker}",
            "message": {
                "id": f"msg-{marker}",
                "role": "assistant",
                "content": [{"type": "text", "text": f"The {marker} retry loop never backs off."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_turn_appends_a_little_and_is_searchable_before_any_upkeep(history: Path) -> None:
    index([history])
    store = ChunkStore.open(local_memory_dir())
    before = health(store)
    assert before.fts_indexed and before.scalar_indexes and before.due == []
    table = local_memory_dir() / "chunks.lance"
    disk_before = folder_bytes(table)

    transcript = _append_exchange(history, "zebracanary01")
    report = index([transcript])

    assert report.chunks_added == 2
    assert report.maintenance == []  # nothing was due: no rewrite, no index rebuild
    after = health(ChunkStore.open(local_memory_dir()))
    assert after.fts_unindexed == 2 and after.fragments == before.fragments + 1
    assert folder_bytes(table) - disk_before < 512 * 1024
    hits = recall("zebracanary01 job", k=3).hits
    assert hits and "zebracanary01" in hits[0].text


def test_upkeep_folds_once_enough_has_piled_up_and_drops_old_versions(
    history: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index([history])
    monkeypatch.setattr(maintenance, "FOLD_MIN_ROWS", 4)
    monkeypatch.setattr(maintenance, "FOLD_SHARE", 0.0)
    index([_append_exchange(history, "zebracanary02")])  # 2 unindexed rows: not yet
    report = index([_append_exchange(history, "zebracanary03")])  # 4: due
    assert report.maintenance == ["fold new rows into the indexes"]
    store = ChunkStore.open(local_memory_dir())
    state = health(store)
    assert state.fts_unindexed == 0 and state.due == []
    assert state.versions <= 2
    live = folder_bytes(local_memory_dir() / "chunks.lance" / "data") + sum(
        i.size_bytes or 0 for i in store.table.list_indices()
    )
    assert state.disk_bytes <= 1.5 * live
    assert len(_ids()) == len(set(_ids()))
    assert "zebracanary03" in recall("zebracanary03", k=1).hits[0].text


def test_a_large_memory_gets_a_vector_index_that_agrees_with_exact_search(
    monkeypatch: pytest.MonkeyPatch, history: Path
) -> None:
    from funes.index.embed import load_embedder
    from funes.retrieve.search import vector_leg

    monkeypatch.setattr(maintenance, "ANN_MIN_ROWS", 500)
    monkeypatch.setattr(maintenance, "ANN_ROWS_PER_PARTITION", 256)
    report = index([history])
    assert "build vector index" in report.maintenance
    store = ChunkStore.open(local_memory_dir())
    assert health(store).vector_index
    embedder = load_embedder()
    overlap = []
    for query in ["release notes", "pytest failure", "html template", "timezone"]:
        vector = embedder.encode([query])[0]
        exact = {r["id"] for r in vector_leg(store.table, vector, None, 20, exact=True)}
        ann = {r["id"] for r in vector_leg(store.table, vector, None, 20)}
        overlap.append(len(exact & ann) / len(exact))
    assert sum(overlap) / len(overlap) >= 0.9


@pytest.mark.parametrize(
    "point",
    [
        "after create table",
        "after append",
        "before build full-text index",
        "after build full-text index",
        "before build scalar indexes",
    ],
)
def test_a_kill_during_a_first_index_is_repaired_by_the_next_run(history: Path, point: str) -> None:
    killed = _funes("index", "--json", str(history), crash_at=point)
    assert killed.returncode == 137
    rerun = _funes("index", "--json", str(history))
    assert rerun.returncode == 0, rerun.stderr
    ids = _ids()
    assert ids and len(ids) == len(set(ids))  # nothing doubled

    fresh = Path(os.environ["FUNES_HOME"]).parent / "clean-home"
    clean = subprocess.run(
        [sys.executable, "-m", "funes.entry", "index", "--json", str(history)],
        env={**os.environ, "FUNES_HOME": str(fresh)},
        capture_output=True,
        text=True,
    )
    assert sorted(ids) == sorted(
        ChunkStore.open(fresh / "memory").scan(["id"]).column("id").to_pylist()
    ), clean.stderr  # nothing lost
    state = health(ChunkStore.open(local_memory_dir()))
    assert state.fts_indexed and state.scalar_indexes and state.due == []
    status = _funes("status", "--json")
    assert status.returncode == 0, status.stderr
    assert not list(local_memory_dir().glob(".creating-*"))


def test_a_kill_during_a_fold_is_repaired_by_the_next_upkeep(history: Path) -> None:
    index([history])
    index([_append_exchange(history, "zebracanary04")])
    before = sorted(_ids())
    script = (
        "from funes.index import maintenance\n"
        "from funes.index.store import ChunkStore\n"
        "from funes.paths import local_memory_dir\n"
        "maintenance.maintain(ChunkStore.open(local_memory_dir()), full=True)\n"
    )
    env = {**os.environ, maintenance.CRASH_ENV: "before fold new rows into the indexes"}
    killed = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True)
    assert killed.returncode == 137
    assert health(ChunkStore.open(local_memory_dir())).fts_unindexed == 2
    done = maintenance.maintain(ChunkStore.open(local_memory_dir()), full=True)
    assert done == ["fold new rows into the indexes"]
    assert sorted(_ids()) == before
    assert "zebracanary04" in recall("zebracanary04", k=1).hits[0].text


def test_a_table_folder_left_without_a_version_is_rebuilt(history: Path) -> None:
    # What a kill inside table creation left behind before creation became a rename.
    (local_memory_dir() / "chunks.lance" / "_versions").mkdir(parents=True)
    status = _funes("status")
    assert "Traceback" not in status.stderr
    rerun = _funes("index", "--json", str(history))
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["chunks_added"] > 0
    assert recall("release", k=1).hits


def test_a_lost_full_text_index_comes_back_even_when_nothing_is_new(history: Path) -> None:
    index([history])
    store = ChunkStore.open(local_memory_dir())
    store.table.drop_index("text_idx")
    assert not health(ChunkStore.open(local_memory_dir())).fts_indexed
    report = index([history])
    assert report.chunks_added == 0
    assert "build full-text index" in report.maintenance
    assert health(ChunkStore.open(local_memory_dir())).fts_indexed


def test_failed_hook_entries_are_retried_a_bounded_number_of_times() -> None:
    from funes.integrations.hook import queue_dir
    from funes.integrations.hook_worker import RETRY_AFTER_S, RETRY_ATTEMPTS, requeue_failed

    failed = queue_dir() / "failed"
    failed.mkdir(parents=True)
    entry = failed / "1-entry.json"
    entry.write_text(json.dumps({"agent": "claude", "transcript_path": "/nowhere.jsonl"}))
    old = time.time() - RETRY_AFTER_S - 1
    os.utime(entry, (old, old))
    assert requeue_failed() == 1
    requeued = queue_dir() / "1-entry.json"
    assert json.loads(requeued.read_text())["attempts"] == 1

    # A fresh failure waits for the interval; one that used its attempts stays aside.
    os.replace(requeued, entry)
    assert requeue_failed() == 0
    entry.write_text(json.dumps({"agent": "claude", "attempts": RETRY_ATTEMPTS}))
    os.utime(entry, (old, old))
    assert requeue_failed() == 0 and entry.exists()


def test_a_turn_rewrites_its_own_resume_point_not_the_whole_history_state(
    history: Path,
) -> None:
    from funes.index.state import state_path

    index([history])
    resume_dir = state_path().with_name("state.resume")
    before = {p.name: p.stat().st_mtime_ns for p in resume_dir.iterdir()}
    assert len(before) > 1
    assert '"resume"' not in state_path().read_text()  # the compact part holds no resume data

    transcript = _append_exchange(history, "zebracanary05")
    index([transcript])
    after = {p.name: p.stat().st_mtime_ns for p in resume_dir.iterdir()}
    changed = {name for name in after if before.get(name) != after[name]}
    assert len(changed) == 1  # the new unit's file; every other unit's untouched

    # The next read of a grown unit resumes from its file: nothing re-read, nothing doubled.
    with transcript.open("a") as handle:
        handle.write(transcript.read_text().splitlines()[0].replace("u-", "u2-") + "\n")
    report = index([transcript])
    assert report.chunks_known == 0 and report.chunks_added == 1


def test_a_state_with_inline_resume_points_moves_them_out_and_keeps_reading_on(
    history: Path,
) -> None:
    from funes.index.state import IndexState, state_path

    transcript = _append_exchange(history, "zebracanary06")
    index([history])
    state = IndexState.load()
    raw = json.loads(state_path().read_text())
    for key in raw["units"]:
        raw["units"][key]["resume"] = state.resume_of(key)  # the layout of earlier releases
    shutil.rmtree(state_path().with_name("state.resume"))
    state_path().write_text(json.dumps(raw))
    again = index([history])
    assert again.chunks_added == 0 and again.units_read == 0
    assert '"resume"' not in state_path().read_text()
    with transcript.open("a") as handle:
        handle.write(transcript.read_text().splitlines()[0].replace("u-", "u2-") + "\n")
    grown = index([transcript])
    assert grown.chunks_known == 0 and grown.chunks_added == 1  # resumed from the moved file
    assert len(list(state_path().with_name("state.resume").iterdir())) == len(raw["units"])

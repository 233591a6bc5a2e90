"""Project and team memory on the Hub, through the real huggingface_hub client and the loopback
Hub (tests/hub_server.py): curate → push → another machine recalls only what was included;
forget → a published tombstone → readers drop the rows; --purge-history → the rows are gone from
the dataset and its history."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sync_fixtures import SESSIONS_A, add_sessions, child_env, make_turns, remote_ids, use_home

pytest_plugins = ("sync_fixtures",)  # the `hub` fixture

FUNES = [sys.executable, "-m", "funes.cli"]
NOW = datetime(2026, 1, 20, tzinfo=UTC)
PROJECT = "acme/widgets"
REPO = "alice/widgets-memory"


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")
    monkeypatch.setenv("FUNES_REMOTE_CHECK_S", "0")  # readers look at the remote every time
    monkeypatch.chdir(tmp_path)


def add_repo_sessions(sessions: dict[str, list[str]], repo: str) -> None:
    """Index sessions recorded in a checkout of `repo` into the local memory."""
    from funes.index.chunking import chunk_turn
    from funes.index.embed import load_embedder
    from funes.index.store import ChunkStore
    from funes.paths import local_memory_dir

    embedder = load_embedder()
    store = ChunkStore.create_or_open(local_memory_dir(), embedder)
    chunks = [
        c
        for sid, texts in sessions.items()
        for t in make_turns(sid, texts)
        for c in chunk_turn(t, repo)
    ]
    known = store.known_ids([c.id for c in chunks])
    fresh = [c for c in chunks if c.id not in known]
    store.add(fresh, embedder.encode([c.text for c in fresh]))
    store.ensure_indexes()


def _sessions_recalled(query: str, memory: str) -> set[str]:
    from funes.retrieve import recall

    result = recall(query, memory=memory, second_pass=False, now=NOW, neighbors=0, k=20)
    return {h.session_id for h in result.hits}


def _curate(home: Path, hub, *args: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run(
        [*FUNES, "curate", REPO, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=child_env(hub, home),
    )


WIDGET_SESSIONS = {
    "sess-cache": [
        "Why does the widget cache miss after every deploy?",
        "Because the cache key includes the build hash; key it by widget id instead.",
    ],
    "sess-render": [
        "The widget renderer flickers on resize.",
        "Debounce the resize handler to one frame.",
    ],
    "sess-salary": [
        "Draft my salary negotiation notes for the widget team review.",
        "Here are talking points for the negotiation.",
    ],
}


def test_curate_then_push_publishes_only_included_sessions(hub, monkeypatch, tmp_path) -> None:
    from funes.sync.push import push

    home = use_home(monkeypatch, tmp_path / "maintainer")
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    add_repo_sessions({"sess-elsewhere": ["Unrelated widget repo work.", "Done."]}, "other/x")

    bare = _curate(home, hub, "--project", "widgets")
    assert bare.returncode != 0 and "did you mean acme/widgets" in bare.stderr
    listed = _curate(home, hub, "--project", PROJECT, "--json")
    assert listed.returncode == 0, listed.stderr
    sessions = {s["session_id"]: s for s in json.loads(listed.stdout)["sessions"]}
    assert set(sessions) == set(WIDGET_SESSIONS)  # only this repository's sessions
    assert sessions["sess-cache"]["prompt"].startswith("Why does the widget cache miss")
    decided = _curate(home, hub, "--include", "sess-cac", "--exclude", "sess-sal")
    assert "recorded 1 include, 1 exclude" in decided.stdout, decided.stderr
    assert "1 pending review" in decided.stdout

    report = push(REPO, yes=True)
    assert report.project == PROJECT and report.pending_review == 1
    assert report.created_repo and hub.state.repos[REPO].private is True
    files = hub.files(REPO)
    assert json.loads(files["funes.json"]) == {"kind": "project", "project": PROJECT}
    card = files["README.md"].decode()
    assert f"Project memory of {PROJECT}" in card and "| Period | 2026-01-01 → 2026-01-02 |" in card
    assert len(remote_ids(hub, REPO)) == 2  # the two chunks of sess-cache, nothing else
    from funes.integrations.status import memory_status

    notes = memory_status(REPO)["notes"]
    assert f"project memory of {PROJECT}: 1 session(s) pending review" in " ".join(notes)

    use_home(monkeypatch, tmp_path / "new-developer")
    assert _sessions_recalled("widget cache deploy renderer salary negotiation", REPO) == {
        "sess-cache"
    }

    # The included session grows: held back until it is reviewed again.
    use_home(monkeypatch, home)
    add_repo_sessions(
        {"sess-cache": [*WIDGET_SESSIONS["sess-cache"], "And bump the TTL."]}, PROJECT
    )
    again = push(REPO)
    assert again.pushed == 0 and again.pending_review == 2
    _curate(home, hub, "--include", "sess-cache")
    assert push(REPO).pushed == 1


def test_a_personal_memory_is_not_turned_into_a_project_memory(hub, monkeypatch, tmp_path) -> None:
    from funes.sync.push import PushRefused, push

    home = use_home(monkeypatch, tmp_path / "home")
    add_repo_sessions(WIDGET_SESSIONS, PROJECT)
    push(REPO, yes=True)  # a personal memory: every session
    assert _curate(home, hub, "--project", PROJECT, "--include", "sess-cache").returncode == 0
    with pytest.raises(PushRefused, match="already holds a personal memory"):
        push(REPO)


def test_forget_publishes_a_tombstone_every_reader_honours_then_purge(
    hub, monkeypatch, tmp_path
) -> None:
    from funes.project.forget import apply, plan
    from funes.sync.push import push

    writer = use_home(monkeypatch, tmp_path / "writer")
    add_sessions(SESSIONS_A)
    push(REPO, yes=True)
    first_shard = next(p for p in hub.files(REPO) if p.endswith(".parquet"))

    use_home(monkeypatch, tmp_path / "reader")
    assert "sess-redis" in _sessions_recalled("why did we drop the redis cache", REPO)

    use_home(monkeypatch, writer)
    apply(plan(session="sess-redis"))
    report = push(REPO)
    assert report.pushed == 0 and report.tombstoned == 2
    [tombstone] = [p for p in hub.files(REPO) if p.startswith("forgotten/")]
    assert len(json.loads(hub.files(REPO)[tombstone])["chunk_ids"]) == 2
    assert push(REPO).tombstoned == 0  # published once

    use_home(monkeypatch, tmp_path / "reader")
    recalled = _sessions_recalled("why did we drop the redis cache", REPO)
    assert "sess-redis" not in recalled and "sess-lance" in recalled
    # The rows are still in the shard (readers drop them) until the history is purged.
    assert len(remote_ids(hub, REPO)) == 4

    # A machine that still has the session locally never publishes it again.
    use_home(monkeypatch, tmp_path / "laptop")
    add_sessions(SESSIONS_A)
    assert push(REPO).pushed == 0

    use_home(monkeypatch, writer)
    purge = subprocess.run(
        [*FUNES, "push", REPO, "--purge-history", "--json"],
        capture_output=True,
        text=True,
        env=child_env(hub, writer),
    )
    assert purge.returncode == 0, purge.stderr
    purged = json.loads(purge.stdout)["purged"]
    assert purged["rows_kept"] == 2 and purged["shards_removed"] == 1
    assert purged["lfs_deleted"] >= 1  # the old shard's stored object
    assert len(remote_ids(hub, REPO)) == 2
    assert hub.commit_count(REPO) == 1  # the history is one commit
    import pyarrow.parquet as pq

    # Every object the Hub still stores for the repo, history included: no forgotten text.
    texts = [
        t
        for blob in hub.state.lfs.values()
        if blob[:4] == b"PAR1"
        for t in pq.read_table(io.BytesIO(blob)).column("text").to_pylist()
    ]
    assert not any("redis" in t for t in texts) and any("LanceDB" in t for t in texts)
    assert first_shard not in hub.files(REPO)

    use_home(monkeypatch, tmp_path / "reader")  # its copy rebuilds from the rewritten shard
    recalled = _sessions_recalled("why did we drop the redis cache LanceDB", REPO)
    assert recalled == {"sess-lance"}


def test_a_reader_forgets_from_a_hub_memory_and_publishes_the_tombstone(
    hub, monkeypatch, tmp_path
) -> None:
    from funes.sync.push import push

    use_home(monkeypatch, tmp_path / "writer")
    add_sessions(SESSIONS_A)
    push(REPO, yes=True)

    reader = use_home(monkeypatch, tmp_path / "maintainer")  # reads the memory, has none of its own
    assert "sess-redis" in _sessions_recalled("why did we drop the redis cache", REPO)
    forgot = subprocess.run(
        [*FUNES, "forget", "--memory", REPO, "--session", "sess-redis", "--yes", "--json"],
        capture_output=True,
        text=True,
        env=child_env(hub, reader),
    )
    assert forgot.returncode == 0, forgot.stderr
    assert json.loads(forgot.stdout)["chunks"] == 2
    # Gone from this machine's copy at once (the next command reads without it) ...
    recalled = subprocess.run(
        [*FUNES, "recall", "why did we drop the redis cache", "--memory", REPO, "--json"],
        capture_output=True,
        text=True,
        env=child_env(hub, reader, FUNES_REMOTE_CHECK_S="3600"),
        check=True,
    ).stdout
    assert {h["session_id"] for h in json.loads(recalled)["hits"]} == {"sess-lance"}
    # ... and published to every reader by a push.
    assert push(REPO).tombstoned == 2

    use_home(monkeypatch, tmp_path / "someone-else")
    assert "sess-redis" not in _sessions_recalled("why did we drop the redis cache", REPO)

"""Fixtures for the sync tests: a loopback Hub the real huggingface_hub client talks to, and
small local memories built through the real chunker, embedder and store."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hub_server import HubServer

WRITE_TOKEN = "hf_test_write_token_for_loopback"
READ_TOKEN = "hf_test_read_token_for_loopback"


def hub_env(server: HubServer, token: str | None = WRITE_TOKEN) -> dict[str, str]:
    """Environment a child process needs to talk to the loopback Hub."""
    env = {
        "HF_ENDPOINT": server.url,
        "HF_HUB_OFFLINE": "0",
        # Legacy LFS transfer: the Hub's Xet storage cannot be served from a test process.
        "HF_HUB_DISABLE_XET": "1",
    }
    if token:
        env["HF_TOKEN"] = token
    return env


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubServer]:
    from huggingface_hub import constants

    server = HubServer()
    server.add_token(WRITE_TOKEN, user="alice", write=True)
    server.add_token(READ_TOKEN, user="alice", write=False)
    for key, value in hub_env(server).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    # huggingface_hub reads these at import; the conftest made this process offline.
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "hf-home" / "token"))
    yield server
    server.stop()


def use_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("FUNES_HOME", str(home))
    return home


def make_turns(session_id: str, texts: list[str], harness: str = "claude_code") -> list:
    from funes.model import Block, Turn

    turns = []
    for seq, text in enumerate(texts):
        turns.append(
            Turn(
                session_id=session_id,
                turn_uuid=f"{session_id}-t{seq}",
                parent_uuid=f"{session_id}-t{seq - 1}" if seq else None,
                seq=seq,
                ts=f"2026-01-0{1 + seq % 9}T10:00:00Z",
                role="user" if seq % 2 == 0 else "assistant",
                workdir="/work/project",
                harness=harness,
                source_path=f"/tmp/{session_id}.jsonl",
                blocks=[Block(block_type="text", text=text)],
            )
        )
    return turns


def add_sessions(sessions: dict[str, list[str]], path: Path | None = None) -> int:
    """Index `sessions` (id → turn texts) into the memory at `path` (default: the local one)."""
    from funes.index.chunking import chunk_turn
    from funes.index.embed import load_embedder
    from funes.index.store import ChunkStore
    from funes.paths import local_memory_dir

    embedder = load_embedder()
    store = ChunkStore.create_or_open(path or local_memory_dir(), embedder)
    chunks = [
        c for sid, texts in sessions.items() for t in make_turns(sid, texts) for c in chunk_turn(t)
    ]
    fresh = [c for c in chunks if c.id not in store.known_ids([c.id for c in chunks])]
    added = store.add(fresh, embedder.encode([c.text for c in fresh]))
    store.ensure_indexes()
    return added


def remote_ids(server: HubServer, repo_id: str) -> list[str]:
    """Every chunk id in the shards the loopback Hub holds at head."""
    import io

    import pyarrow.parquet as pq

    ids: list[str] = []
    for path, content in server.files(repo_id).items():
        if path.endswith(".parquet"):
            ids.extend(pq.read_table(io.BytesIO(content)).column("id").to_pylist())
    return ids


def remote_text(server: HubServer, repo_id: str) -> str:
    """All bytes the remote holds, decoded loosely, plus the shards' text columns."""
    import io

    import pyarrow.parquet as pq

    parts = []
    for path, content in server.files(repo_id).items():
        parts.append(content.decode("utf-8", "replace"))
        if path.endswith(".parquet"):
            parts.extend(pq.read_table(io.BytesIO(content)).column("text").to_pylist())
    return "\n".join(parts)


def child_env(server: HubServer, home: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, **hub_env(server), "FUNES_HOME": str(home), **extra}
    return env


SESSIONS_A = {
    "sess-redis": [
        "We dropped the redis cache because invalidation across the three workers kept "
        "serving stale prices after a deploy.",
        "Agreed: replace it with an in-process LRU keyed by product id and a 30 second TTL.",
    ],
    "sess-lance": [
        "LanceDB full-text search needs an FTS index on the text column before match queries.",
        "The vector column is a fixed size list of float32 with the embedding dimension.",
    ],
}
SESSIONS_B = {
    "sess-deploy": [
        "The deploy script failed because the staging bucket name had a trailing slash.",
        "Fixed by normalising the bucket path in deploy.sh before calling the uploader.",
    ]
}

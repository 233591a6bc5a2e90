"""Remote memory benchmark against the loopback Hub (tests/hub_server.py), in one run:

- recall on the same memory: local, remote cold (empty cache), remote warm (ratio vs local);
- push: time and bytes uploaded for N chunks (first push), then an incremental push of one
  session.

Usage: python bench/sync_bench.py [--sizes 10000,100000] [--iters 5]
Synthetic transcripts (sentences from a code-chat vocabulary) with real embeddings.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

VOCABULARY = """
cache redis deploy bucket lance index vector query test fixture parser session turn chunk embed
model token retry commit branch merge config docker build error stack trace timeout worker queue
schema column table migrate rollback latency memory
"""
WORDS = VOCABULARY.split()


def synthetic_sessions(n_chunks: int, seed: int = 1) -> dict[str, list[str]]:
    rng = random.Random(seed)
    sessions: dict[str, list[str]] = {}
    per_session = 20
    for s in range(max(1, n_chunks // per_session)):
        sessions[f"bench-{seed}-{s:06d}"] = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120))) + "."
            for _ in range(per_session)
        ]
    return sessions


def build_memory(sessions: dict[str, list[str]]) -> None:
    """Index straight into a fresh local memory (setup, not measured)."""
    from sync_fixtures import make_turns

    from funes.index.chunking import chunk_turn
    from funes.index.embed import load_embedder
    from funes.index.store import ChunkStore

    embedder = load_embedder()
    store = ChunkStore.create_or_open(None, embedder)
    turns = [t for sid, texts in sessions.items() for t in make_turns(sid, texts)]
    chunks = [c for t in turns for c in chunk_turn(t)]
    for start in range(0, len(chunks), 20_000):
        batch = chunks[start : start + 20_000]
        store.add(batch, embedder.encode([c.text for c in batch]))
    store.ensure_indexes()


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--query", default="why did the deploy to the bucket time out")
    args = parser.parse_args()

    from hub_server import HubServer
    from sync_fixtures import WRITE_TOKEN, hub_env

    server = HubServer()
    server.add_token(WRITE_TOKEN)
    os.environ.update(hub_env(server))
    from huggingface_hub import constants

    constants.HF_HUB_OFFLINE = False
    constants.HF_HUB_DISABLE_XET = True
    os.environ.setdefault("LANCEDB_LOG", "error")

    from funes.retrieve import recall
    from funes.sync.push import push

    def recall_ms(memory: str | None) -> float:
        seconds, _ = timed(recall, args.query, memory=memory, second_pass=False)
        return seconds * 1000

    for size in [int(s) for s in args.sizes.split(",")]:
        repo = f"alice/bench-{size}"
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["FUNES_HOME"] = f"{tmp}/writer"
            index_s, _ = timed(build_memory, synthetic_sessions(size))
            before = server.state.lfs_bytes_received
            push_s, report = timed(push, repo, yes=True)
            sent = server.state.lfs_bytes_received - before
            print(
                f"[{size}] indexed in {index_s:.1f}s; first push {push_s:.1f}s, "
                f"{report.pushed} chunks, {sent / 1e6:.1f} MB LFS "
                f"({sent / max(report.pushed, 1):.0f} B/chunk)"
            )

            build_memory(synthetic_sessions(20, seed=99))
            before = server.state.lfs_bytes_received
            inc_s, inc = timed(push, repo)
            sent = server.state.lfs_bytes_received - before
            print(
                f"[{size}] incremental push of one session: {inc_s:.2f}s, {inc.pushed} chunks, "
                f"{sent / 1e3:.1f} KB LFS"
            )

            local = [recall_ms(None) for _ in range(args.iters + 1)][1:]
            os.environ["FUNES_HOME"] = f"{tmp}/reader"
            cold = recall_ms(repo)
            seen = len(server.requests)
            warm = [recall_ms(repo) for _ in range(args.iters)]
            warm_requests = len(server.requests) - seen
            base = statistics.median(local)
            print(
                f"[{size}] recall local {base:.1f} ms | remote cold {cold:.1f} ms "
                f"({cold / base:.2f}x) | remote warm {statistics.median(warm):.1f} ms "
                f"({statistics.median(warm) / base:.2f}x, {warm_requests} HTTP requests)"
            )
    server.stop()


if __name__ == "__main__":
    main()

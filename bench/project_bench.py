"""Costs of project/team memory features, as ratios to a baseline measured in the same run.

- forget one session from a memory of N chunks (rewrite its fragments, rebuild the full-text
  index, prune old versions) vs. building that full-text index once from scratch;
- recall over two memories (`recall_many`) vs. recall over one of the same size.

    nice -n 10 python bench/project_bench.py --chunks 50000
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path


def build(path: Path, chunks: int, seed: int) -> None:
    import random

    from funes.index.chunking import chunk_turn
    from funes.index.embed import load_embedder
    from funes.index.store import ChunkStore
    from funes.model import Block, Turn

    rng = random.Random(seed)
    words = [
        *("cache", "deploy", "widget", "lance", "index", "recall"),
        *("session", "bucket", "retry", "token", "parser", "queue"),
    ]
    embedder = load_embedder()
    store = ChunkStore.create_or_open(path, embedder)
    batch: list = []
    per_session = 20
    for i in range(chunks):
        sid, seq = f"s{seed}-{i // per_session:06d}", i % per_session
        text = " ".join(rng.choice(words) for _ in range(40)) + f" note {i}"
        turn = Turn(
            sid,
            f"{sid}-t{seq}",
            None,
            seq,
            f"2026-0{1 + i % 9}-01T00:00:00Z",
            "user",
            "/work/bench",
            "claude_code",
            "/tmp/x.jsonl",
            [Block("text", text)],
        )
        batch.extend(chunk_turn(turn))
        if len(batch) >= 4096:
            store.add(batch, embedder.encode([c.text for c in batch]))
            batch = []
    if batch:
        store.add(batch, embedder.encode([c.text for c in batch]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["FUNES_HOME"] = home
        os.environ["FUNES_RERANKER"] = "none"
        from funes.index.store import ChunkStore
        from funes.project.forget import apply, plan
        from funes.project.multi import recall_many

        one, two = Path(home) / "memory", Path(home) / "other"
        build(one, args.chunks, 1)
        build(two, args.chunks, 2)
        store = ChunkStore.open(one)
        started = time.perf_counter()
        store.ensure_indexes()
        fts_s = time.perf_counter() - started
        ChunkStore.open(two).ensure_indexes()

        forget_s = []
        for i in range(args.repeats):
            started = time.perf_counter()
            apply(plan(session=f"s1-{i * 7:06d}"))
            forget_s.append(time.perf_counter() - started)
        forget = statistics.median(forget_s)

        query = "why does the widget cache miss after a deploy"
        single, double = [], []
        recall_many([str(one)], query, second_pass=False)  # warm
        recall_many([str(one), str(two)], query, second_pass=False)
        for _ in range(args.repeats):
            started = time.perf_counter()
            recall_many([str(one)], query, second_pass=False)
            single.append(time.perf_counter() - started)
            started = time.perf_counter()
            recall_many([str(one), str(two)], query, second_pass=False)
            double.append(time.perf_counter() - started)
        print(f"chunks per memory: {args.chunks}")
        print(f"full-text index build (baseline): {fts_s:.2f} s")
        print(
            f"forget one session (median of {args.repeats}): {forget:.2f} s "
            f"= {forget / fts_s:.2f}x the index build"
        )
        s1, s2 = statistics.median(single), statistics.median(double)
        print(
            f"recall one memory: {s1 * 1000:.0f} ms; two memories: {s2 * 1000:.0f} ms "
            f"= {s2 / s1:.2f}x"
        )


if __name__ == "__main__":
    main()

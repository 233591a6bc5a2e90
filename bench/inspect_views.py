"""How long the inspect views take on a large memory: `funes sessions`, `funes show`, the
`funes ui` overview and the doctor's memory checks.

Builds a synthetic memory (random unit vectors, word-salad text, ~30 chunks per session, a few
`[REDACTED:…]` markers) unless `--memory` names one, then times each view (best of `--repeat`)
next to the baseline every view pays: one scan of the columns a session summary reads. Figures
are ratios to that baseline, measured in the same run.

    nice -n 10 python bench/inspect_views.py --chunks 300000
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

WORDS = [
    "the",
    "a",
    "migration",
    "cache",
    "redis",
    "index",
    "lance",
    "vector",
    "fix",
    "test",
    "deploy",
    "build",
    "error",
    "retry",
]


def build(path: Path, chunks: int, seed: int = 7) -> None:
    import numpy as np
    import pyarrow as pa

    from funes.index.embed import load_embedder
    from funes.index.store import TABLE, chunks_schema
    from funes.lance import import_lancedb

    embedder = load_embedder()
    schema = chunks_schema(embedder.dim, embedder.model_id, embedder.content_hash)
    rng = random.Random(seed)
    sessions = max(chunks // 30, 1)
    table = None
    for start in range(0, chunks, 20_000):
        n = min(20_000, chunks - start)
        rows = range(start, start + n)
        sid = [f"sess-{i // 30:06d}" for i in rows]
        seq = [(i % 30) // 2 for i in rows]
        day = [(int(s[5:]) * 365) // sessions for s in sid]
        cols = {
            "id": [f"c{i}" for i in rows],
            "text": [
                " ".join(rng.choice(WORDS) for _ in range(70))
                + (" [REDACTED:github_token]" if i % 997 == 0 else "")
                for i in rows
            ],
            "session_id": sid,
            "turn_uuid": [f"{s}-t{q}" for s, q in zip(sid, seq, strict=True)],
            "parent_uuid": [None] * n,
            "seq": seq,
            "ts": [
                f"2026-{1 + d // 31 % 12:02d}-{1 + d % 28:02d}T10:{q:02d}:00Z"
                for d, q in zip(day, seq, strict=True)
            ],
            "role": ["user" if q % 2 == 0 else "assistant" for q in seq],
            "block_type": ["text"] * n,
            "tool_name": [None] * n,
            "harness": ["codex" if int(s[5:]) % 3 == 0 else "claude_code" for s in sid],
            "workdir": [f"/home/dev/proj{int(s[5:]) % 40}" for s in sid],
            "repo": [""] * n,
            "source_path": [f"/t/{s}.jsonl" for s in sid],
            "block_idx": [0] * n,
            "split_idx": [0] * n,
        }
        vectors = np.random.default_rng(start).standard_normal((n, embedder.dim))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        flat = pa.array(vectors.astype(np.float16).reshape(-1), pa.float16())
        arrays = [
            pa.FixedSizeListArray.from_arrays(flat, embedder.dim)
            if field.name == "vector"
            else pa.array(cols[field.name], field.type)
            for field in schema
        ]
        data = pa.Table.from_arrays(arrays, schema=schema)
        if table is None:
            table = import_lancedb().connect(str(path)).create_table(TABLE, data=data)
        else:
            table.add(data)
    from lancedb.index import FTS

    assert table is not None
    table.create_index("text", config=FTS(with_position=False), replace=True)


def best_ms(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=300_000)
    parser.add_argument("--memory", type=Path, help="time an existing memory instead")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from funes.inspect.overview import overview
    from funes.inspect.sessions import _SUMMARY_COLUMNS, list_sessions, show_session
    from funes.sync.memory import open_memory

    with tempfile.TemporaryDirectory(prefix="funes-inspect-bench-") as tmp:
        path = args.memory or Path(tmp) / "memory"
        if args.memory is None:
            start = time.perf_counter()
            build(path, args.chunks)
            print(f"built {args.chunks} chunks in {time.perf_counter() - start:.1f} s")
        spec = str(path)
        store = open_memory(spec).store
        some_session = store.scan(["session_id"]).column("session_id")[0].as_py()
        baseline = best_ms(lambda: store.scan(_SUMMARY_COLUMNS), args.repeat)
        views = {
            "funes sessions (newest 50)": lambda: list_sessions(spec, limit=50),
            "funes sessions --limit 0 (all)": lambda: list_sessions(spec, limit=0),
            "funes sessions --harness codex --since (50)": lambda: list_sessions(
                spec, harness="codex", since="2026-10-01", limit=50
            ),
            "funes show SESSION": lambda: show_session(some_session, spec),
            "ui overview (counts, activity, redactions)": lambda: overview(spec),
        }
        results = {name: round(best_ms(run, args.repeat), 1) for name, run in views.items()}
        print(f"\n{store.count()} chunks; baseline: scan of the summary columns {baseline:.0f} ms")
        print("| view | ms | × baseline |\n| --- | ---: | ---: |")
        for name, ms in results.items():
            print(f"| {name} | {ms:.0f} | {ms / baseline:.2f} |")
        report = {"chunks": store.count(), "baseline_scan_ms": round(baseline, 1), "views": results}
        print(json.dumps(report))


if __name__ == "__main__":
    main()

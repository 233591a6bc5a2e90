"""Recall latency on a ~100k-chunk memory: warm (models loaded, as in the MCP server) and cold
(a fresh `funes recall` process), with where the time goes.

    .venv/bin/python bench/recall_latency.py [--source-home DIR] [--chunks 100000] [--queries 50]

The memory is built by repeating a real indexed corpus (default: LoCoMo, built and indexed as
bench/locomo.py does) under new session ids, reusing its vectors, then maintained as the indexer
leaves a memory (full-text index, btrees, the ANN index above its threshold). bench/dayzero.py
measures the same on a heavy user's real-shaped history.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def build_source(work: Path) -> Path:
    """A FUNES_HOME holding the indexed LoCoMo corpus."""
    sys.path.insert(0, str(BENCH))
    from locomo import build_corpus

    home = work / "source-home"
    os.environ["FUNES_HOME"] = str(home)
    build_corpus(work / "locomo")
    from funes.index.indexer import index

    corpus = work / "locomo" / "corpus" / "home"
    index(paths=[corpus / ".claude" / "projects", corpus / ".codex" / "sessions"], everything=True)
    return home


def repeat_memory(source_home: Path, target_home: Path, chunks: int) -> int:
    import pyarrow as pa
    import pyarrow.compute as pc

    from funes.index.store import ChunkStore

    source = ChunkStore.open(source_home / "memory")
    rows = source.table.to_arrow()
    target_home.mkdir(parents=True, exist_ok=True)
    import lancedb

    db = lancedb.connect(str(target_home / "memory"))
    table = None
    copy = 0
    while table is None or table.count_rows() < chunks:
        batch = rows
        for column in ("id", "session_id"):
            renamed = pc.binary_join_element_wise(batch.column(column), pa.scalar(f"~{copy}"), "")
            batch = batch.set_column(batch.schema.get_field_index(column), column, renamed)
        if table is None:
            table = db.create_table("chunks", data=batch, schema=rows.schema)
        else:
            table.add(batch)
        copy += 1
    from funes.index.maintenance import maintain

    maintain(ChunkStore.open(target_home / "memory"))
    return table.count_rows()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-home", type=Path, help="FUNES_HOME of an indexed corpus")
    parser.add_argument("--questions", type=Path, help="LoCoMo questions.jsonl (query sample)")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--cold-runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LANCEDB_LOG", "error")

    work = Path(tempfile.mkdtemp(prefix="funes-latency-"))
    source = args.source_home or build_source(work)
    questions = args.questions or (work / "locomo" / "questions.jsonl")
    target = work / "home"
    started = time.monotonic()
    total = repeat_memory(source, target, args.chunks)
    print(f"memory: {total} chunks built in {time.monotonic() - started:.0f}s → {target}")
    os.environ["FUNES_HOME"] = str(target)

    queries = [json.loads(line)["question"] for line in questions.read_text().splitlines()]
    queries = queries[:: max(1, len(queries) // args.queries)][: args.queries]

    from funes.retrieve import recall

    started = time.perf_counter()
    first = recall(queries[0], k=8)
    print(
        f"first recall (loads models): {(time.perf_counter() - started) * 1000:.0f} ms, "
        f"second pass {first.second_pass}"
    )
    walls: list[float] = []
    phases: dict[str, list[float]] = {}
    for query in queries:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        recall(query, k=8, timings=timings)
        walls.append((time.perf_counter() - started) * 1000)
        for phase, ms in timings.items():
            phases.setdefault(phase, []).append(ms)
    print(
        f"warm recall over {len(walls)} queries: p50 {percentile(walls, 0.5):.0f} ms, "
        f"p95 {percentile(walls, 0.95):.0f} ms"
    )
    for phase, values in phases.items():
        print(f"  {phase:18s} p50 {statistics.median(values):7.1f} ms")

    funes = [sys.executable, "-m", "funes.cli"]
    colds: list[float] = []
    for query in queries[: args.cold_runs]:
        started = time.perf_counter()
        subprocess.run([*funes, "recall", query], check=True, capture_output=True)
        colds.append((time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = (time.perf_counter() - started) * 1000
    imports = subprocess.run(
        [
            sys.executable,
            "-c",
            "import time; t = time.perf_counter(); import lancedb; "
            "print(round((time.perf_counter() - t) * 1000))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(
        f"cold `funes recall` over {len(colds)} runs: p50 {percentile(colds, 0.5):.0f} ms, "
        f"max {max(colds):.0f} ms (bare python start {bare:.0f} ms, import lancedb {imports} ms)"
    )


if __name__ == "__main__":
    main()

"""Day zero on a heavy user's machine: index a year of history with the defaults, then recall at
once, and see what every later agent turn costs.

    .venv/bin/python bench/dayzero.py [--haystack /tmp/funes-haystack] [--work DIR] [--json OUT]
                                      [--every 8] [--turns 6] [--skip 12k]

Builds the haystack with ../shared/bench/haystack/make_haystack.py (--target-chunks 300000
--with-locomo --with-corpus) unless one is there, then, in one run:

- index: `funes index --all` in a fresh FUNES_HOME, as a user would run it (its own process):
  wall time, peak RSS, chunks/s, against a bare `model2vec` encode of the same number of chunk
  texts in this process (the baseline ratio);
- disk: bytes per chunk on disk with every index, and each index's share;
- recall right after indexing (nothing left running): warm in-process recall (as the MCP server
  answers) p50/p95, cold `funes recall` processes, and `funes recall` processes answered by the
  warm service (bench/cli_recall.py); again at steady state after a fold;
- LoCoMo inside the haystack (every Nth question), scored by ../shared/bench/locomo/score.py;
- ANN against exact vector search: recall@50 and latency, at every memory size measured;
- a turn: a Stop hook fired for a session that grows by one exchange at a time, the time until
  that turn is searchable, and the memory's disk growth per turn (and its ratio to live data),
  on a ~12k-chunk memory (the shared corpus) and on the whole haystack.
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
import uuid
from pathlib import Path
from typing import Any

from cli_recall import FUNES, cli_latency
from cli_recall import QUERIES as CODING_QUERIES

SHARED = Path(__file__).resolve().parents[2] / "shared"
HAYSTACK_SCRIPT = SHARED / "bench" / "haystack" / "make_haystack.py"
SCORER = SHARED / "bench" / "locomo" / "score.py"


def ensure_haystack(out: Path) -> Path:
    if not (out / "manifest.json").is_file():
        cmd = [sys.executable, str(HAYSTACK_SCRIPT), "--out", str(out), "--target-chunks"]
        cmd += ["300000", "--with-locomo", "--with-corpus"]
        subprocess.run(cmd, check=True)
    return out


def timed_index(home: Path, funes_home: Path, paths: list[Path] | None = None) -> dict[str, Any]:
    """`funes index` in its own process, measured by GNU time (wall, peak RSS)."""
    env = {**os.environ, "HOME": str(home), "FUNES_HOME": str(funes_home)}
    report = funes_home.parent / f"{funes_home.name}.time"
    cmd = ["/usr/bin/time", "-f", "%e %M", "-o", str(report), *FUNES, "index", "--json"]
    cmd += [str(p) for p in paths] if paths else ["--all"]
    done = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    wall, rss_kb = report.read_text().split()[-2:]
    stats = json.loads(done.stdout)
    return {
        "wall_s": float(wall),
        "peak_rss_mb": int(rss_kb) / 1024,
        "chunks": stats["chunks_added"],
        "chunks_per_s": stats["chunks_added"] / float(wall),
        "maintenance": stats.get("maintenance", []),
    }


def baseline_encode(funes_home: Path, n: int) -> float:
    """Chunks/s of a bare model2vec encode of `n` stored chunk texts (the same model)."""
    from model2vec import StaticModel

    from funes.index.embed import BUNDLED_MODEL_DIR
    from funes.index.store import ChunkStore

    store = ChunkStore.open(funes_home / "memory")
    texts = store.table.search().select(["text"]).limit(n).to_arrow().column("text").to_pylist()
    model = StaticModel.from_pretrained(str(BUNDLED_MODEL_DIR))
    started = time.perf_counter()
    model.encode(texts, use_multiprocessing=False)
    return len(texts) / (time.perf_counter() - started)


def disk_report(funes_home: Path) -> dict[str, Any]:
    from funes.index.maintenance import folder_bytes, health
    from funes.index.store import ChunkStore

    store = ChunkStore.open(funes_home / "memory")
    state = health(store)
    table = funes_home / "memory" / "chunks.lance"
    parts = {d.name: folder_bytes(d) for d in table.iterdir() if d.is_dir()}
    live = sum(idx.size_bytes or 0 for idx in store.table.list_indices()) + parts.get("data", 0)
    return {
        "rows": state.rows,
        "bytes_per_chunk": state.disk_bytes / max(state.rows, 1),
        "disk_mb": state.disk_bytes / 1e6,
        "data_mb": parts.get("data", 0) / 1e6,
        "indices_mb": parts.get("_indices", 0) / 1e6,
        "disk_over_live": state.disk_bytes / max(live, 1),
        "fragments": state.fragments,
        "versions": state.versions,
        "indexes": {i.name: (i.size_bytes or 0) / 1e6 for i in store.table.list_indices()},
    }


def warm_latency(funes_home: Path, queries: list[str]) -> dict[str, float]:
    """Recall as the MCP server runs it: one process, models loaded, store opened per call."""
    os.environ["FUNES_HOME"] = str(funes_home)
    from funes.retrieve import format_agent, recall

    format_agent(recall(queries[0]))  # load models, warm caches
    times = []
    for query in queries:
        started = time.perf_counter()
        format_agent(recall(query))
        times.append(time.perf_counter() - started)
    return _percentiles(times)


def cold_latency(home: Path, funes_home: Path, runs: int = 5) -> dict[str, float]:
    """Cold `funes recall` processes, each followed by the same-run baseline: a bare process
    that imports lancedb and nothing else (the floor any Lance reader pays; on this machine
    the speed of both drifts by ±30% from hour to hour, their ratio much less)."""
    env = {**os.environ, "HOME": str(home), "FUNES_HOME": str(funes_home)}
    env["FUNES_WARM_IDLE_S"] = "0"  # cold means cold: no warm service answers
    times, floor = [], []
    for query in CODING_QUERIES[:runs]:
        started = time.perf_counter()
        subprocess.run([*FUNES, "recall", query], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import lancedb"], env=env, check=True)
        floor.append(time.perf_counter() - started)
    report = {"max_ms": max(times) * 1000, **_percentiles(times)}
    baseline = statistics.median(floor) * 1000
    return {**report, "import_lancedb_p50_ms": baseline, "ratio": report["p50_ms"] / baseline}


def _percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000,
        "n": len(ordered),
    }


def locomo_in_haystack(funes_home: Path, questions: Path, every: int, work: Path) -> dict:
    os.environ["FUNES_HOME"] = str(funes_home)
    from funes.retrieve import recall

    chosen = [json.loads(line) for line in questions.read_text().splitlines()][::every]
    subset = work / "locomo_questions.jsonl"
    subset.write_text("".join(json.dumps(q) + "\n" for q in chosen))
    results = work / "locomo_results.jsonl"
    with results.open("w") as sink:
        for q in chosen:
            hits = recall(q["question"], k=50, neighbors=0).hits
            rows = [
                {"session_id": h.session_id, "turn_uuid": h.turn_uuid, "turn_index": h.seq}
                for h in hits
            ]
            sink.write(json.dumps({"id": q["id"], "hits": rows}) + "\n")
    report = work / "locomo_score.json"
    cmd = [sys.executable, str(SCORER), str(subset), str(results), "--json", str(report)]
    subprocess.run(cmd, check=True, capture_output=True)
    overall = json.loads(report.read_text())["overall"]
    return {"n": overall["n"], "hit1": overall["hit1"], "hit5": overall["hit5"]}


def ann_vs_exact(funes_home: Path, queries: list[str]) -> dict[str, Any]:
    from funes.index.embed import load_embedder
    from funes.index.store import ChunkStore
    from funes.retrieve.search import vector_leg

    store = ChunkStore.open(funes_home / "memory")
    embedder = load_embedder(store.model_id or None)
    vectors = embedder.encode(queries)
    exact_ids, ann_ids, exact_t, ann_t = [], [], [], []
    for vector in vectors:
        for exact, ids, times in ((True, exact_ids, exact_t), (False, ann_ids, ann_t)):
            started = time.perf_counter()
            rows = vector_leg(store.table, vector, None, 50, exact=exact)
            times.append(time.perf_counter() - started)
            ids.append({r["id"] for r in rows})
    overlap = [len(a & e) / max(len(e), 1) for a, e in zip(ann_ids, exact_ids, strict=True)]
    from funes.index.maintenance import health

    return {
        "rows": store.count(),
        "ann_index": health(store).vector_index,
        "recall_at_50": statistics.mean(overlap),
        "exact": _percentiles(exact_t),
        "ann": _percentiles(ann_t),
    }


def ann_on_a_slice(source_home: Path, rows: int, work: Path, queries: list[str]) -> dict:
    """ANN against exact search on the first `rows` rows of a measured memory, copied into a
    memory of their own and maintained as the indexer leaves one."""
    from funes.index.maintenance import maintain
    from funes.index.store import ChunkStore
    from funes.lance import import_lancedb

    source = ChunkStore.open(source_home / "memory")
    target = work / f"home-slice-{rows}"
    db = import_lancedb().connect(str(target / "memory"))
    table = None
    for batch in source.table.search().limit(rows).to_batches(8192):
        if table is None:
            table = db.create_table("chunks", data=batch, schema=source.table.schema)
        else:
            table.add(batch)
    maintain(ChunkStore.open(target / "memory"))
    return ann_vs_exact(target, queries)


def turn_cost(home: Path, funes_home: Path, turns: int) -> dict[str, Any]:
    """Fire Claude Code's Stop hook after each new exchange of a growing session; time until
    the turn is found by recall, and the disk the memory gains per turn."""
    from funes.index.maintenance import folder_bytes

    project = home / ".claude" / "projects" / "-work-dayzero-bench"
    project.mkdir(parents=True, exist_ok=True)
    session = str(uuid.uuid4())
    transcript = project / f"{session}.jsonl"
    env = {**os.environ, "HOME": str(home), "FUNES_HOME": str(funes_home)}
    env["CLAUDE_CONFIG_DIR"] = str(home / ".claude")
    os.environ.update({k: env[k] for k in ("FUNES_HOME", "CLAUDE_CONFIG_DIR")})
    table = funes_home / "memory" / "chunks.lance"
    _wait_for_worker(funes_home)
    disk_before = folder_bytes(table)
    searchable, growth = [], []
    parent = None
    for n in range(turns):
        marker = f"zebracanary{uuid.uuid4().hex[:10]}"
        parent = _append_exchange(transcript, session, n, marker, parent)
        before = folder_bytes(table)
        payload = {"session_id": session, "transcript_path": str(transcript)}
        payload["hook_event_name"] = "Stop"
        fired = time.perf_counter()
        subprocess.run([*FUNES, "hook", "claude"], input=json.dumps(payload), text=True, env=env)
        searchable.append(_until_found(marker, fired))
        _wait_for_worker(funes_home)
        growth.append(folder_bytes(table) - before)
    transcript.unlink()
    return {
        "turns": turns,
        "searchable_s": _percentiles(searchable) | {"all": [round(s, 2) for s in searchable]},
        "growth_kb_per_turn_median": statistics.median(growth) / 1024,
        "growth_kb_total": (folder_bytes(table) - disk_before) / 1024,
    }


def _append_exchange(path: Path, session: str, n: int, marker: str, parent: str | None) -> str:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    user_id, reply_id = str(uuid.uuid4()), str(uuid.uuid4())
    common = {"sessionId": session, "cwd": "/work/dayzero-bench", "version": "2.1.197"}
    user = {
        **common,
        "type": "user",
        "uuid": user_id,
        "parentUuid": parent,
        "timestamp": stamp,
        "message": {"role": "user", "content": f"turn {n}: why does the {marker} job time out?"},
    }
    reply = {
        **common,
        "type": "assistant",
        "uuid": reply_id,
        "parentUuid": user_id,
        "timestamp": stamp,
        "message": {
            "id": f"msg_{uuid.uuid4().hex}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {
                    "type": "text",
                    "text": f"The {marker} job times out because the retry loop never backs "
                    "off; I capped it at five attempts with exponential delay. " * 3,
                }
            ],
        },
    }
    with path.open("a") as handle:
        handle.write(json.dumps(user) + "\n" + json.dumps(reply) + "\n")
    return reply_id


def _until_found(marker: str, since: float, limit_s: float = 300.0) -> float:
    from funes.retrieve import recall

    while time.perf_counter() - since < limit_s:
        try:
            if any(marker in h.text for h in recall(marker, k=3, neighbors=0).hits):
                return time.perf_counter() - since
        except Exception:
            pass
        time.sleep(0.2)
    return float("inf")


def _wait_for_worker(funes_home: Path, limit_s: float = 900.0) -> None:
    import fcntl

    lock = funes_home / "queue" / ".worker.lock"
    if not lock.exists():
        return
    deadline = time.monotonic() + limit_s
    with open(lock, "a") as handle:
        while time.monotonic() < deadline:
            queued = list((funes_home / "queue").glob("*.json"))
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
                if not queued:
                    return
            except BlockingIOError:
                pass
            time.sleep(0.2)


def steady_state(funes_home: Path) -> list[str]:
    """What a heavy user's memory looks like after a while: everything folded in."""
    from funes.index.maintenance import maintain
    from funes.index.store import ChunkStore

    return maintain(ChunkStore.open(funes_home / "memory"), full=True)


def measure_memory(
    name: str, home: Path, funes_home: Path, paths: list[Path] | None, args: Any, work: Path
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    print(f"[{name}] indexing…", file=sys.stderr)
    out["index"] = timed_index(home, funes_home, paths)
    out["index"]["baseline_encode_chunks_per_s"] = baseline_encode(funes_home, 20_000)
    out["index"]["ratio_to_baseline"] = (
        out["index"]["chunks_per_s"] / out["index"]["baseline_encode_chunks_per_s"]
    )
    out["disk"] = disk_report(funes_home)
    questions = _recall_questions(home)
    print(f"[{name}] recall right after indexing…", file=sys.stderr)
    out["fresh"] = {
        "warm": warm_latency(funes_home, questions),
        "cold": cold_latency(home, funes_home),
        "cli_cold_vs_warm": cli_latency(funes_home, home),
    }
    out["ann_vs_exact"] = ann_vs_exact(funes_home, questions)
    locomo = home.parent / "locomo" / "questions.jsonl"
    if locomo.is_file() and paths is None:
        print(f"[{name}] LoCoMo in the haystack…", file=sys.stderr)
        out["locomo"] = locomo_in_haystack(funes_home, locomo, args.every, work)
    print(f"[{name}] per-turn cost…", file=sys.stderr)
    out["turn"] = turn_cost(home, funes_home, args.turns)
    out["disk_after_turns"] = disk_report(funes_home)
    out["steady_state_maintenance"] = steady_state(funes_home)
    out["steady"] = {"warm": warm_latency(funes_home, questions)}
    out["disk_steady"] = disk_report(funes_home)
    return out


def _recall_questions(home: Path) -> list[str]:
    locomo = home.parent / "locomo" / "questions.jsonl"
    asked = list(CODING_QUERIES)
    if locomo.is_file():
        lines = locomo.read_text().splitlines()[::40]
        asked += [json.loads(line)["question"] for line in lines]
    return asked * (2 if len(asked) < 40 else 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--haystack", type=Path, default=Path("/tmp/funes-haystack"))
    parser.add_argument("--work", type=Path, help="keep memories here (default: temp)")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--every", type=int, default=8, help="every Nth LoCoMo question")
    parser.add_argument("--turns", type=int, default=6, help="hook firings per memory")
    parser.add_argument("--skip", action="append", default=[], choices=["12k", "340k"])
    parser.add_argument(
        "--ann-slice",
        type=int,
        default=100_000,
        help="also measure ANN vs exact on this many rows of the large memory (0: skip)",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LANCEDB_LOG", "error")
    haystack = ensure_haystack(args.haystack)
    work = args.work or Path(tempfile.mkdtemp(prefix="funes-dayzero-"))
    work.mkdir(parents=True, exist_ok=True)
    home = haystack / "home"
    results: dict[str, Any] = {"haystack": json.loads((haystack / "manifest.json").read_text())}
    results["haystack"].pop("sources", None)
    if "12k" not in args.skip:
        corpus = SHARED / "corpus"
        results["12k"] = measure_memory("12k", home, work / "home-12k", [corpus], args, work)
    if "340k" not in args.skip:
        results["340k"] = measure_memory("340k", home, work / "home-340k", None, args, work)
        if args.ann_slice:
            questions = _recall_questions(home)
            results[f"ann_{args.ann_slice}"] = ann_on_a_slice(
                work / "home-340k", args.ann_slice, work, questions
            )
    text = json.dumps(results, indent=2, default=str)
    if args.json:
        args.json.write_text(text)
    print(text)


if __name__ == "__main__":
    main()

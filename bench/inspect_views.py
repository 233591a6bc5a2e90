"""How long the inspect views take on a large memory: `funes sessions`, `funes show`, the
`funes ui` overview and the doctor's memory checks; and how long the page takes to open a long
session (the corpus's 1,007-turn pi session: its API answer, and in headless Chromium from the
link to the painted timeline).

Builds a synthetic memory (random unit vectors, word-salad text, ~30 chunks per session, a few
`[REDACTED:…]` markers) unless `--memory` names one, then times each view (best of `--repeat`)
next to the baseline every view pays: one scan of the columns a session summary reads. Figures
are ratios to that baseline, measured in the same run.

    nice -n 10 python bench/inspect_views.py --chunks 300000
    nice -n 10 python bench/inspect_views.py --long-session-only
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
LONG_SESSION_FILE = HERE.parents[1] / "shared/corpus/pi/badlogic__pi-mono__compact.jsonl"
LONG_SESSION = "2638daee-0588-4baa-bd33-68b4c002818e"
# Opens the session from the search view and resolves once its timeline is laid out and painted.
OPEN_SESSION_JS = """async (id) => {
  document.getElementById("timeline").replaceChildren();
  location.hash = "#search";
  await new Promise((ok) => setTimeout(ok, 50));
  const start = performance.now();
  location.hash = "#session/" + id;
  await new Promise((ok) => {
    const done = () => document.querySelector("#timeline > .turn:last-child");
    const tick = () => (done() ? ok() : setTimeout(tick, 2));
    tick();
  });
  document.body.offsetHeight;
  await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
  return performance.now() - start;
}"""

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


def long_session_timings(repeat: int) -> dict[str, float]:
    """The page on the corpus's 1,007-turn session: the API answer (read, rendered, JSON) and,
    where Playwright and Chromium are installed, link to painted timeline in the browser."""
    from funes.index.indexer import index
    from funes.inspect.webapi import answer

    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="funes-ui-bench-") as home:
        os.environ["FUNES_HOME"] = home
        index([LONG_SESSION_FILE])
        status, data = answer("session", None, {"id": LONG_SESSION})
        assert status == 200, data
        turns = len(data["turns"])
        results[f"ui session API ({turns} turns, rendered)"] = round(
            best_ms(lambda: answer("session", None, {"id": LONG_SESSION}), repeat), 1
        )
        browser = _browser_ms(repeat)
        if browser is not None:
            results[f"ui opens the {turns}-turn session in Chromium (link → painted)"] = browser
    return results


def _browser_ms(repeat: int) -> float | None:
    chromium = os.environ.get("FUNES_CHROMIUM") or shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    from funes.inspect.webui import UIServer

    ui = UIServer(None, 0)
    ui.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium)
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(ui.url)
            page.evaluate(OPEN_SESSION_JS, LONG_SESSION)  # warm: first imports, first render
            best = min(page.evaluate(OPEN_SESSION_JS, LONG_SESSION) for _ in range(repeat))
            browser.close()
    finally:
        ui.shutdown()
        ui.server_close()
    return round(best, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=300_000)
    parser.add_argument("--memory", type=Path, help="time an existing memory instead")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--long-session-only", action="store_true", help="only time the page on a long session"
    )
    args = parser.parse_args()
    if args.long_session_only:
        long = long_session_timings(args.repeat)
        print("| view | ms |\n| --- | ---: |")
        for name, ms in long.items():
            print(f"| {name} | {ms:.0f} |")
        print(json.dumps({"long_session": long}))
        return

    from funes.inspect.overview import overview
    from funes.inspect.sessions import (
        _SUMMARY_COLUMNS,
        list_sessions,
        session_page,
        show_session,
    )
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
            "ui session list (page of 100, totals)": lambda: session_page(spec, limit=100),
            "funes show SESSION": lambda: show_session(some_session, spec),
            "ui overview (counts, activity, redactions)": lambda: overview(spec),
        }
        results = {name: round(best_ms(run, args.repeat), 1) for name, run in views.items()}
        print(f"\n{store.count()} chunks; baseline: scan of the summary columns {baseline:.0f} ms")
        print("| view | ms | × baseline |\n| --- | ---: | ---: |")
        for name, ms in results.items():
            print(f"| {name} | {ms:.0f} | {ms / baseline:.2f} |")
        report = {"chunks": store.count(), "baseline_scan_ms": round(baseline, 1), "views": results}
    long = long_session_timings(args.repeat)
    for name, ms in long.items():
        print(f"| {name} | {ms:.0f} | |")
    print(json.dumps({**report, "long_session": long}))


if __name__ == "__main__":
    main()

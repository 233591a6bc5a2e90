"""Indexing throughput: funes end to end vs a plain model2vec encode of the same texts.

Indexes (1) the LoCoMo corpus in agent layouts and (2) the whole shared corpus of real
transcripts into temporary funes homes, and reports chunks/s, peak RSS, bytes per chunk on disk,
and the ratio to a bare `StaticModel.encode` of the very same chunk texts in the same run (the
floor any indexer pays). Run: `python bench/index_bench.py [--locomo-out DIR]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def build_locomo(out: Path) -> Path:
    home = out / "corpus" / "home"
    if not home.is_dir():
        subprocess.run(
            ["bash", str(SHARED / "bench/locomo/run_all.sh")],
            env={**os.environ, "LOCOMO_OUT": str(out)},
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return home


def measure(name: str, paths: list[Path]) -> dict[str, object]:
    from funes.index.embed import load_embedder
    from funes.index.indexer import index
    from funes.paths import local_memory_dir

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FUNES_HOME"] = tmp
        load_embedder()  # model load is a one-off, not per-chunk cost
        started = time.perf_counter()
        report = index(paths)
        elapsed = time.perf_counter() - started
        memory = local_memory_dir()
        on_disk = folder_bytes(memory)
        from funes.index.store import ChunkStore

        texts = ChunkStore.open(memory).scan(["text"]).column("text").to_pylist()
    # The baseline: model2vec's own encode of the very same texts, in this process.
    model = load_embedder().model
    started = time.perf_counter()
    model.encode(texts, use_multiprocessing=False)
    encode_s = time.perf_counter() - started
    chunks = report.chunks_added
    return {
        "corpus": name,
        "chunks": chunks,
        "turns": report.turns,
        "seconds": round(elapsed, 2),
        "chunks_per_s": round(chunks / elapsed, 1) if elapsed else None,
        "plain_encode_chunks_per_s": round(len(texts) / encode_s, 1) if encode_s else None,
        "ratio_vs_plain_encode": round((chunks / elapsed) / (len(texts) / encode_s), 3)
        if elapsed and encode_s
        else None,
        "bytes_per_chunk_on_disk": round(on_disk / chunks) if chunks else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--locomo-out", type=Path, default=Path(tempfile.gettempdir()) / "funes-locomo"
    )
    parser.add_argument("--skip-locomo", action="store_true")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.one:
        name, *paths = args.one
        json.dump(measure(name, [Path(p) for p in paths]), sys.stdout)
        return
    jobs = []
    if not args.skip_locomo:
        home = build_locomo(args.locomo_out)
        jobs.append(["locomo", str(home / ".claude"), str(home / ".codex")])
    jobs.append(["shared-corpus", str(SHARED / "corpus")])
    results = []
    for job in jobs:
        # One process per corpus, so peak RSS is that corpus's own.
        out = subprocess.run(
            [sys.executable, __file__, "--one", *job], check=True, capture_output=True, text=True
        ).stdout
        results.append(json.loads(out))
    json.dump(results, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

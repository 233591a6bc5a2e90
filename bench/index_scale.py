"""Where a first `funes index --all` spends its time and memory as the memory grows.

    .venv/bin/python bench/index_scale.py --haystack /tmp/funes-haystack [--json OUT]

Indexes the haystack's home (``make_haystack.py``) into a fresh FUNES_HOME in this process, as
`funes index --all` does, with every phase timed by wrapping the functions that do it: read
(parse a transcript), redact, chunk, "already stored?" lookups, embed, append to Lance, state
saves, and each end-of-run index build. Reports, per tenth of the chunks added, the throughput
and the resident memory, so a phase whose cost grows with what is already stored shows as a
falling rate or a rising share; and the peak RSS (VmHWM) with the phase it was reached in.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


class Phases:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.peak = (0.0, "start")
        self.current = "start"

    def wrap(self, owner: Any, name: str, phase: str, sample: bool = True) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            outer, self.current = self.current, phase
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[phase] += time.perf_counter() - started
                self.calls[phase] += 1
                if sample:  # reading /proc costs ~20 µs: not on per-turn phases
                    self.note_rss()
                self.current = outer

        setattr(owner, name, timed)

    def note_rss(self) -> None:
        peak = rss_mb("VmHWM")
        if peak > self.peak[0]:
            self.peak = (peak, self.current)


def instrument(phases: Phases) -> None:
    from funes.index import embed, indexer, maintenance, state, store
    from funes.traces import all_sources

    for reader in {type(source) for source in all_sources()}:
        phases.wrap(reader, "read", "read")
    phases.wrap(indexer._IndexRun, "_redact_turn", "redact", sample=False)
    phases.wrap(indexer, "chunk_turn", "chunk", sample=False)
    phases.wrap(store.ChunkStore, "known_ids", "stored? lookups")
    phases.wrap(embed.Embedder, "encode", "embed")
    phases.wrap(store.ChunkStore, "add", "append")
    phases.wrap(state.IndexState, "save", "state save")
    phases.wrap(maintenance, "_build_fulltext", "index: full text")
    phases.wrap(maintenance, "_build_scalar_indexes", "index: btrees")
    phases.wrap(maintenance, "_build_vector_index", "index: vector")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--haystack", type=Path, default=Path("/tmp/funes-haystack"))
    parser.add_argument("--funes-home", type=Path, help="default: a fresh temporary folder")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    home = args.funes_home or Path(tempfile.mkdtemp(prefix="funes-scale-")) / "home"
    os.environ["HOME"] = str(args.haystack / "home")
    os.environ["FUNES_HOME"] = str(home)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "HERMES_HOME"):
        os.environ.pop(name, None)

    from funes.index.indexer import index

    phases = Phases()
    instrument(phases)
    slices: list[dict[str, float]] = []
    started = time.perf_counter()
    last = {"t": started, "chunks": 0}
    added = {"chunks": 0}

    def progress(event: str, info: dict[str, Any]) -> None:
        if event == "embed":
            added["chunks"] += info["chunks"]
        if event == "maintain":
            phases.current = f"index: {info['step']}"
        now = time.perf_counter()
        if event == "embed" and now - last["t"] > 0:
            slices.append(
                {
                    "chunks": added["chunks"],
                    "s": round(now - started, 1),
                    "chunks_per_s": round((added["chunks"] - last["chunks"]) / (now - last["t"])),
                    "rss_mb": round(rss_mb()),
                }
            )
            last.update(t=now, chunks=added["chunks"])

    report = index(everything=True, progress=progress)
    wall = time.perf_counter() - started
    total = report.chunks_added
    tenths = [s for i, s in enumerate(slices) if i % max(1, len(slices) // 10) == 0]
    accounted = sum(phases.seconds.values())
    result = {
        "chunks": total,
        "units": report.units_read,
        "wall_s": round(wall, 1),
        "chunks_per_s": round(total / wall),
        "peak_rss_mb": round(rss_mb("VmHWM")),
        "peak_reached_in": phases.peak[1],
        "phases_s": {k: round(v, 1) for k, v in sorted(phases.seconds.items())},
        "phase_calls": dict(phases.calls),
        "other_s": round(wall - accounted, 1),
        "first_half_chunks_per_s": _rate(slices, 0, total // 2),
        "second_half_chunks_per_s": _rate(slices, total // 2, total),
        "slices": tenths,
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


def _rate(slices: list[dict[str, float]], low: int, high: int) -> float:
    """Chunks/s while the memory grew from `low` to `high` chunks (embed-to-embed spans)."""
    inside = [s for s in slices if low < s["chunks"] <= high]
    if len(inside) < 2:
        return 0.0
    return round((inside[-1]["chunks"] - inside[0]["chunks"]) / (inside[-1]["s"] - inside[0]["s"]))


if __name__ == "__main__":
    sys.exit(main())

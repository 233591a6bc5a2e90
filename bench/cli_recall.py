"""`funes recall` as a process per call (pi, Hermes, scripts): cold, and with the warm service.

    .venv/bin/python bench/cli_recall.py --funes-home DIR [--home DIR] [--runs 10] [--json OUT]

Interleaved in one run, for the memory in DIR: a cold `funes recall` process (the warm path
off, `FUNES_WARM_IDLE_S=0`), the same call answered by a running warm service (started by a
first call, as an agent's first tool call starts it), and two floors: a bare interpreter
(`python -c pass`) and one that imports lancedb and nothing else. The outputs of the cold and
warm calls are compared byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

FUNES = [sys.executable, "-m", "funes.entry"]
QUERIES = [
    "why did the tokenizer test fail",
    "subprocess timeout handling in the runner",
    "which flag fixed the flaky CI run",
    "json decoder error on a large file",
    "how is the logging handler configured",
    "what did we decide about retries",
    "where is the config file parsed",
    "the migration broke the build",
]


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started, done.stdout


def _service_pid(funes_home: Path, limit_s: float = 120.0) -> int:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        for sock in (funes_home / "run").glob("*.sock"):
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                    conn.connect(str(sock))
                    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
                return struct.unpack("3i", raw)[0]
            except OSError:
                continue
        time.sleep(0.2)
    raise RuntimeError("the warm service did not start")


def cli_latency(funes_home: Path, home: Path | None = None, runs: int = 8) -> dict[str, Any]:
    """Cold and warm `funes recall` processes, interleaved with their floors."""
    env = {**os.environ, "FUNES_HOME": str(funes_home)}
    if home is not None:
        env["HOME"] = str(home)
    cold_env = {**env, "FUNES_WARM_IDLE_S": "0"}
    warm_env = {**env, "FUNES_WARM_IDLE_S": "120"}
    _timed([*FUNES, "recall", QUERIES[0]], warm_env)  # answers cold, starts the service
    pid = _service_pid(funes_home)
    _timed([*FUNES, "recall", QUERIES[0]], warm_env)  # waits for the warm-up to finish
    cold, warm, bare, lancedb, same = [], [], [], [], []
    try:
        for query in (QUERIES * (runs // len(QUERIES) + 1))[:runs]:
            took, cold_out = _timed([*FUNES, "recall", query], cold_env)
            cold.append(took)
            took, warm_out = _timed([*FUNES, "recall", query], warm_env)
            warm.append(took)
            same.append(cold_out == warm_out)
            bare.append(_timed([sys.executable, "-c", "pass"], env)[0])
            lancedb.append(_timed([sys.executable, "-c", "import lancedb"], env)[0])
    finally:
        os.kill(pid, signal.SIGTERM)
    return {
        "cold": _ms(cold),
        "warm": _ms(warm),
        "python_pass": _ms(bare),
        "import_lancedb": _ms(lancedb),
        "warm_over_cold": statistics.median(warm) / statistics.median(cold),
        "identical_output": all(same),
    }


def _ms(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000),
        "n": len(ordered),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--funes-home", type=Path, required=True)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = cli_latency(args.funes_home, args.home, args.runs)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

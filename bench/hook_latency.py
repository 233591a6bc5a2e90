"""How long `funes hook <agent>` keeps the agent waiting, against a bare Python start-up.

Runs the hook the way an agent does (a fresh process, payload on stdin) N times and prints
p50/p95 wall time, next to `python -c pass` measured in the same run, so the ratio holds on a
busy machine. Also times the worst case the hook must survive: stdin left open, never closed.

Two situations: a worker is already draining the queue (the hook only writes its spool entry;
the script holds the worker lock to stand in for it), and none is (the hook also spawns one; the
spawned workers then run in the background, as they would, with HOME pointing at an empty dir).

Each agent's hook gets the payload shape that agent sends (`--agent` names one or more; by
default every agent `funes add` serves); the open-stdin, no-click and spawning cases are timed
with the first.

Usage: .venv/bin/python bench/hook_latency.py [--runs 30] [--agent claude --agent gemini ...]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _funes_bin() -> str:
    beside = Path(sys.executable).with_name("funes")
    return str(beside) if beside.exists() else (shutil.which("funes") or "funes")


def _time_run(argv: list[str], payload: bytes | None, env: dict[str, str], close: bool) -> float:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, env=env)
    assert proc.stdin is not None
    if payload is not None:
        proc.stdin.write(payload)
        proc.stdin.flush()
    if close:
        proc.stdin.close()
    proc.wait()
    elapsed = time.perf_counter() - started
    if not close:
        proc.stdin.close()
    return elapsed


def _payload(agent: str, home: Path) -> bytes:
    """What `agent` writes on the hook's stdin after a turn: Claude Code's Stop shape (Codex,
    Qwen Code and the Hermes plugin send the same keys), pi's plugin its own, and Gemini CLI the
    turn's prompt and response on top."""
    transcript = str(home / "t.jsonl")
    payloads = {
        "gemini": {
            "session_id": "bench",
            "transcript_path": transcript,
            "cwd": str(home),
            "hook_event_name": "AfterAgent",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "prompt": "What did we decide about the cache? " * 20,
            "prompt_response": "We moved it to Redis because ... " * 200,
        },
        "pi": {
            "hook_event_name": "agent_end",
            "session_file": transcript,
            "transcript_path": transcript,
            "session_id": "bench",
            "cwd": str(home),
        },
    }
    stop = {
        "session_id": "bench",
        "transcript_path": transcript,
        "hook_event_name": "Stop",
        "cwd": str(home),
    }
    return json.dumps(payloads.get(agent, stop)).encode()


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1), "p95_ms": round(p95 * 1000, 1)}


def _payload(agent: str, home: Path) -> dict[str, str]:
    """What `agent`'s hook (or plugin) hands `funes hook` after a turn, in its own shape."""
    stop = {"session_id": "bench", "transcript_path": str(home / "t.jsonl"), "cwd": str(home)}
    payloads = {
        "claude": stop | {"hook_event_name": "Stop"},
        "codex": stop | {"hook_event_name": "Stop"},
        "pi": stop | {"hook_event_name": "agent_end", "session_file": str(home / "t.jsonl")},
        "hermes": stop | {"hook_event_name": "post_llm_call"},
        # the plugin's session.idle handler, naming opencode's database
        "opencode": stop | {"hook_event_name": "session.idle", "transcript_path": str(home / "db")},
        # Copilot CLI's agentStop command hook: camelCase, no event name
        "copilot": {"sessionId": "bench", "transcriptPath": str(home / "t.jsonl")},
    }
    return payloads[agent]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--agent", action="append", help="repeatable; default: all")
    args = parser.parse_args()
    from funes.installers import AGENTS

    agents = args.agent or list(AGENTS)

    home = Path(tempfile.mkdtemp(prefix="funes-hook-bench-"))
    env = {**os.environ, "FUNES_HOME": str(home), "HOME": str(home)}
    (home / "queue").mkdir(parents=True)
    first, payload = agents[0], _payload(agents[0], home)
    hook = [_funes_bin(), "hook", first]
    module_hook = [sys.executable, "-m", "funes.integrations.hook", first]
    cases = {
        "python -c pass": ([sys.executable, "-c", "pass"], None, True),
        **{
            f"funes hook {agent} (stdin closed)": (
                [_funes_bin(), "hook", agent],
                _payload(agent, home),
                True,
            )
            for agent in agents
        },
        f"funes hook {first} (stdin left open)": (hook, payload, False),
        "python -m funes.integrations.hook (no click)": (module_hook, payload, True),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    with open(home / "queue" / ".worker.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a worker is "running": hooks only queue
        for argv, data, close in cases.values():
            _time_run(argv, data, env, close)  # warm the page cache and bytecode
        # Round-robin, so a load spike on the shared machine hits every case alike.
        for _ in range(args.runs):
            for name, (argv, data, close) in cases.items():
                samples[name].append(_time_run(argv, data, env, close))
    results: dict[str, dict[str, float]] = {n: _summary(t) for n, t in samples.items()}
    spawning = [_time_run(hook, payload, env, True) for _ in range(args.runs)]
    results["funes hook, spawning a worker"] = _summary(spawning)
    base = results["python -c pass"]["p50_ms"]
    for name, figures in results.items():
        ratio = figures["p50_ms"] / base if base else float("nan")
        print(
            f"{name:44s} p50 {figures['p50_ms']:7.1f} ms  p95 {figures['p95_ms']:7.1f} ms"
            f"  ({ratio:.1f}x python start-up)"
        )
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

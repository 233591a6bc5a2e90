"""One resident memory per machine: several agent sessions' MCP servers and a CLI caller at once.

    .venv/bin/python bench/resident.py --funes-home DIR [--questions 20] [--json OUT]

For the memory in DIR, in one run:
1. reference: one `funes mcp` working in-process (`FUNES_WARM_IDLE_S=0`, as before the
   resident service): its RSS, its first and next recall, and the answers to compare with;
2. one client alone: a thin `funes mcp` (the resident service up) asks the questions one after
   another: p50/p95;
3. four clients and a CLI caller at once: four thin `funes mcp` servers each ask the questions
   while a `funes recall` process per question runs beside them: p50/p95 per kind, the RSS of
   every funes process (sampled; the largest total), per client, and PSS (shared pages
   counted once);
4. a fifth client's first recall while the service is up.
Every forwarded answer is compared byte for byte with the in-process one.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
from cli_recall import QUERIES
from mcp import ClientSession, StdioServerParameters, stdio_client

QUESTIONS = [
    *QUERIES,  # cli_recall's, then twelve more
    "how do we pin the python version",
    "why was the cache invalidated",
    "what does the release script do",
    "the docker image is too large",
    "how are secrets kept out of the logs",
    "which test is slow and why",
    "the lock file was out of date",
    "how do we handle unicode in file names",
    "what broke after the dependency upgrade",
    "how is the database connection pooled",
    "why did the hook not fire",
    "what was the fix for the memory leak",
]


def mcp_params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "funes.cli", "mcp"], env=env)


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def _client(
    env: dict[str, str], questions: list[str], out: dict[str, Any], ready: Any = None
) -> None:
    """One agent session: start the server, then recall each question; its latencies, answers,
    server pid (its RSS read while it runs)."""
    started = time.perf_counter()
    async with stdio_client(mcp_params(env)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        out["initialize_ms"] = (time.perf_counter() - started) * 1000
        latencies, answers = [], []
        for question in questions:
            began = time.perf_counter()
            result = await s.call_tool("recall", {"query": question})
            latencies.append((time.perf_counter() - began) * 1000)
            answers.append(_text(result))
        out["latencies_ms"], out["answers"] = latencies, answers
        out["rss"] = funes_processes(env["FUNES_HOME"])
        if ready is not None:
            ready.set()
            await out["release"].wait()


def funes_processes(funes_home: str) -> dict[int, dict[str, Any]]:
    """Every live process of this funes home: {pid: {kind, rss, pss}} (bytes)."""
    found: dict[int, dict[str, Any]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [w.decode(errors="replace") for w in cmdline]
        # This home's processes of this installation (another checkout's, sharing the home,
        # has its own service).
        if f"FUNES_HOME={funes_home}".encode() not in environ or _real(words[0]) != PYTHON:
            continue
        joined = " ".join(words)
        if "funes.cli.warm_service" in joined:
            kind = "service"
        elif "funes.cli mcp" in joined:
            kind = "mcp"
        elif "funes.entry" in joined or joined.endswith("funes recall") or "/funes " in joined:
            kind = "cli"
        else:
            continue
        found[int(entry.name)] = {"kind": kind, **_memory(entry)}
    return found


# This installation's interpreters' folder, however this one was named (`bench/../.venv/bin/
# python`, or `python3`): the service names its own. Links are not followed: another checkout's
# venv links to the same Python, and its processes are not ours (another checkout's service
# may serve the same home).
PYTHON = os.path.dirname(os.path.abspath(sys.executable))


def _real(path: str) -> str:
    return os.path.dirname(os.path.abspath(path)) if path else ""


def _memory(proc: Path) -> dict[str, int]:
    sizes = {"rss": 0, "pss": 0}
    try:
        for line in (proc / "smaps_rollup").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name in ("Rss", "Pss"):
                sizes[name.lower()] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return sizes


class Sampler:
    """The largest total RSS (and PSS) of this home's funes processes, sampled every 100 ms."""

    def __init__(self, funes_home: str) -> None:
        self.home, self.stop = funes_home, threading.Event()
        self.peak: dict[str, Any] = {"rss": 0, "pss": 0, "processes": {}}
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(0.1):
            seen = funes_processes(self.home)
            total = sum(p["rss"] for p in seen.values())
            if total > self.peak["rss"]:
                pss = sum(p["pss"] for p in seen.values())
                self.peak = {"rss": total, "pss": pss, "processes": seen}

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()


def _cli_caller(env: dict[str, str], questions: list[str], out: dict[str, Any]) -> None:
    funes = [sys.executable, "-m", "funes.entry", "recall"]
    latencies = []
    for question in questions:
        began = time.perf_counter()
        subprocess.run([*funes, question], env=env, capture_output=True, check=True)
        latencies.append((time.perf_counter() - began) * 1000)
    out["latencies_ms"] = latencies


def _stats(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50_ms": round(statistics.median(ordered)),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]),
        "n": len(ordered),
    }


def _mb(n: int) -> float:
    return round(n / 2**20, 1)


def _service_pid(home: str) -> int | None:
    for pid, proc in funes_processes(home).items():
        if proc["kind"] == "service":
            return pid
    return None


async def _reference(env: dict[str, str], questions: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    await _client({**env, "FUNES_WARM_IDLE_S": "0"}, questions, out)
    return out


async def _alone(env: dict[str, str], questions: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    await _client(env, questions, out)
    return out


async def _together(env: dict[str, str], questions: list[str]) -> dict[str, Any]:
    clients: list[dict[str, Any]] = [{"release": anyio.Event()} for _ in range(4)]
    cli: dict[str, Any] = {}
    done = [anyio.Event() for _ in clients]
    sampler = Sampler(env["FUNES_HOME"])
    cli_done = anyio.Event()

    async def cli_caller() -> None:
        await anyio.to_thread.run_sync(_cli_caller, env, questions, cli)
        cli_done.set()

    async with anyio.create_task_group() as group:
        with sampler:  # four sessions and the CLI caller, all asking
            for out, ready in zip(clients, done, strict=True):
                group.start_soon(_client, env, questions, out, ready)
            group.start_soon(cli_caller)
            for ready in done:
                await ready.wait()
            await cli_done.wait()
        # All four servers are still up, and idle: a fifth session's first recall.
        fifth: dict[str, Any] = {}
        await _client(env, questions[:2], fifth)
        for out in clients:
            out["release"].set()
    return {"clients": clients, "cli": cli, "fifth": fifth, "peak": sampler.peak}


def run(funes_home: Path, questions: int) -> dict[str, Any]:
    home = str(funes_home)
    env = {**os.environ, "FUNES_HOME": home, "FUNES_WARM_IDLE_S": "300", "HF_HUB_OFFLINE": "1"}
    asked = (QUESTIONS * (questions // len(QUESTIONS) + 1))[:questions]
    stale = _service_pid(home)
    if stale is not None:
        os.kill(stale, signal.SIGTERM)
        time.sleep(1)
    reference = anyio.run(_reference, env, asked)
    ref_rss = [p["rss"] for p in reference["rss"].values() if p["kind"] == "mcp"]
    # The first thin client starts the service; the second one is the one measured alone.
    anyio.run(_alone, env, asked[:1])
    alone = anyio.run(_alone, env, asked)
    together = anyio.run(_together, env, asked)
    pid = _service_pid(home)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)

    peak = together["peak"]
    processes = peak["processes"].values()
    mcp_rss = [p["rss"] for p in processes if p["kind"] == "mcp"]
    concurrent = [x for c in together["clients"] for x in c["latencies_ms"]]
    answers = [a for c in [alone, *together["clients"]] for a in c["answers"]]
    expected = reference["answers"] * (len(answers) // len(reference["answers"]))
    result = {
        "memory": home,
        "questions_per_client": questions,
        "in_process_server": {
            "rss_mb": _mb(max(ref_rss, default=0)),
            "first_recall_ms": round(reference["latencies_ms"][0]),
            "next_recalls": _stats(reference["latencies_ms"][1:]),
        },
        "one_client_alone": _stats(alone["latencies_ms"]),
        "four_clients_and_cli": {
            "mcp": _stats(concurrent),
            "cli": _stats(together["cli"]["latencies_ms"]),
            "p50_over_alone": round(
                statistics.median(concurrent) / statistics.median(alone["latencies_ms"]), 2
            ),
        },
        "fifth_client_first_recall_ms": round(together["fifth"]["latencies_ms"][0]),
        "fifth_client_initialize_ms": round(together["fifth"]["initialize_ms"]),
        "peak": {
            "processes": sorted(
                f"{p['kind']} {_mb(p['rss'])} MB" for p in peak["processes"].values()
            ),
            "total_rss_mb": _mb(peak["rss"]),
            "total_pss_mb": _mb(peak["pss"]),
            "largest_mcp_server_rss_mb": _mb(max(mcp_rss, default=0)),
        },
        "identical_to_in_process": answers == expected,
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--funes-home", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = run(args.funes_home.resolve(), args.questions)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()

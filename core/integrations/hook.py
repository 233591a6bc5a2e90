"""The per-turn hook every agent calls: note what to index, start a detached worker, return.

A hook must never block or break the agent, so `run_hook`:
- reads the payload from stdin with an overall deadline (some agents never close stdin) or, for
  Codex `notify`, from the last argv;
- writes one spool entry under `$FUNES_HOME/queue/` (atomic rename, one file per firing, so
  concurrent hooks never share a file);
- starts `python -m funes.integrations.hook_worker` in its own session with stdio detached, and
  returns 0 whatever happened (failures go to `$FUNES_HOME/logs/hook.log`).

Only light standard modules are imported here (not even `subprocess`: `os.posix_spawn` starts
the worker): the hook's budget is 150 ms including interpreter start-up (see
bench/hook_latency.py), and lancedb/numpy/torch alone cost more than that.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import sys
import time
from pathlib import Path
from typing import IO, Any

from funes.integrations import agents
from funes.paths import funes_home, logs_dir

STDIN_DEADLINE_S = 0.5
# A log past this size is renamed to `<name>.1` (replacing the older one) before the next write:
# at most twice this on disk per log, however long the hooks run.
LOG_MAX_BYTES = 1 << 20
# Payload keys that name the transcript, across agents (Claude/Codex hooks, pi/Hermes plugins).
_TRANSCRIPT_KEYS = ("transcript_path", "transcriptPath", "session_file", "sessionFile", "path")
_SESSION_KEYS = ("session_id", "thread-id", "thread_id", "sessionId")
# Events after which the worker also runs a budgeted catch-up of the agent's whole history.
CATCH_UP_EVENTS = frozenset({"SessionEnd", "on_session_finalize", "session_shutdown"})


def queue_dir() -> Path:
    return funes_home() / "queue"


def read_stdin_payload(stream: IO[Any] | None, deadline_s: float = STDIN_DEADLINE_S) -> str:
    """Whatever arrives on `stream` within `deadline_s`; stops early once it parses as JSON.

    Never blocks past the deadline: an agent may leave stdin open without writing to it.
    """
    if stream is None:
        return ""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return ""
    if os.isatty(fd):
        return ""
    data = b""
    end = time.monotonic() + deadline_s
    while (remaining := end - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            break
        piece = os.read(fd, 65536)
        if not piece:
            break
        data += piece
        if _is_json(data):
            break
    return data.decode("utf-8", errors="replace")


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


def parse_payload(stdin_text: str, argv: list[str]) -> dict[str, Any]:
    """The hook payload: stdin JSON, else the last argv that is a JSON object (Codex `notify`)."""
    for candidate in (stdin_text, *(reversed(argv))):
        text = candidate.strip()
        if not text.startswith("{"):
            continue
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def spool_entry(agent: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The spool record for one firing: which agent, session and transcript to index."""
    event = payload.get("hook_event_name") or payload.get("type") or payload.get("event") or ""
    transcript = next((payload[k] for k in _TRANSCRIPT_KEYS if payload.get(k)), None)
    session = next((payload[k] for k in _SESSION_KEYS if payload.get(k)), None)
    return {
        "agent": agent,
        "event": str(event),
        "transcript_path": str(transcript) if transcript else None,
        "session_id": str(session) if session else None,
        "cwd": payload.get("cwd") or "",
        "catch_up": event in CATCH_UP_EVENTS,
        "queued_at": time.time(),
    }


def enqueue(entry: dict[str, Any]) -> Path:
    """Write `entry` as its own spool file (tmp + rename, so a reader never sees half of it)."""
    folder = queue_dir()
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{time.time_ns()}-{os.getpid()}-{os.urandom(4).hex()}.json"
    tmp = folder / f".{name}.tmp"
    tmp.write_text(json.dumps(entry))
    final = folder / name
    os.replace(tmp, final)
    return final


def spawn_detached(argv: list[str], log_path: Path | None = None) -> None:
    """Start `argv` in its own session, stdin from /dev/null, output to `log_path` (or nowhere).

    `os.posix_spawn` instead of `subprocess`: no import cost, and nothing waits for the child.
    """
    target = str(log_path) if log_path else os.devnull
    append = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, target, append, 0o644),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions, setsid=True)


def worker_running() -> bool:
    """True when a worker holds the queue lock: it re-checks the queue after releasing it, so
    an entry written before this call is sure to be drained without starting another worker."""
    folder = queue_dir()
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / ".worker.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases the probe's hold at once
    return False


def rotate_log(path: Path, max_bytes: int = LOG_MAX_BYTES) -> None:
    """Keep one older generation: `path` → `path.1` once it has grown past `max_bytes`. A
    worker still writing the old file keeps writing it (now `.1`); the next one starts afresh."""
    try:
        if path.stat().st_size > max_bytes:
            os.replace(path, path.with_name(path.name + ".1"))
    except OSError:  # absent, or another hook rotated it first
        pass


def remove_stale_spool_tmp(older_than_s: float = 60.0) -> None:
    """Delete `queue/.*.tmp` files that a hook killed between write and rename left behind (a
    live one is renamed within milliseconds); run when a worker is started, not on every hook."""
    cutoff = time.time() - older_than_s
    for leftover in queue_dir().glob(".*.tmp"):
        try:
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
        except OSError:
            continue


def spawn_worker() -> None:
    """Start the queue worker (`python -m funes.integrations.hook_worker`) detached, logging to
    logs/."""
    remove_stale_spool_tmp()
    log_folder = logs_dir()
    log_folder.mkdir(parents=True, exist_ok=True)
    log_path = log_folder / "worker.log"
    rotate_log(log_path)
    spawn_detached([sys.executable, "-m", "funes.integrations.hook_worker"], log_path)


def log_hook_error(agent: str, error: BaseException) -> None:
    try:
        log_folder = logs_dir()
        log_folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        rotate_log(log_folder / "hook.log")
        with open(log_folder / "hook.log", "a") as log:
            log.write(f"{stamp} hook {agent}: {type(error).__name__}: {error}\n")
    except OSError:
        pass


def chain_notify(argv: list[str]) -> None:
    """Run the user's own Codex `notify` program that funes wrapped (see installers.codex).

    argv is `--chain PROG [ARGS...] PAYLOAD`; PROG gets the same trailing payload Codex gave us.
    """
    if len(argv) < 3 or argv[0] != "--chain":
        return
    spawn_detached(argv[1:])


def run_hook(
    agent: str, argv: list[str] | None = None, stdin: IO[Any] | None = None, *, worker: bool = True
) -> int:
    """Handle one hook firing for `agent`; always returns 0 (a hook must not break its agent)."""
    argv = list(argv or [])
    try:
        chain_notify(argv)
    except Exception as error:
        log_hook_error(agent, error)
    try:
        payload = parse_payload(read_stdin_payload(stdin), argv)
        enqueue(spool_entry(agent, payload))
        agents.record_hook_fired(agent)
        if worker and not worker_running():
            spawn_worker()
    except Exception as error:
        log_hook_error(agent, error)
    return 0


# `python -m funes.integrations.hook AGENT [ARGS...]`: the same hook without click
if __name__ == "__main__":
    sys.exit(run_hook(sys.argv[1] if len(sys.argv) > 1 else "", sys.argv[2:], sys.stdin))

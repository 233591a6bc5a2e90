"""The detached worker the hook starts: drain `$FUNES_HOME/queue/` into the memory.

One worker at a time drains (a non-blocking flock on `queue/.worker.lock`); a worker that finds
the lock taken exits at once, leaving its entries to the holder. The holder re-checks the queue
after releasing the lock and goes again if anything arrived meanwhile, so an entry queued at any
moment is picked up by someone: never lost, and never indexed twice (chunk ids are coordinates,
and the indexer skips known ones).

Each pass indexes the transcripts the entries name, incrementally (`index(paths=[...])`; readers
stop before a partial last line, so a transcript still being written is fine), then once more
after a short settle delay, because agents may flush the turn's last record just after the hook
fires. Entries from a session's end also run a budgeted catch-up of that agent's whole history.

Run as `python -m funes.integrations.hook_worker`; logs to stderr, which the hook points at
logs/worker.log.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from funes.integrations.hook import queue_dir
from funes.model import HARNESS_ALIASES
from funes.paths import (
    claude_home,
    codex_home,
    copilot_home,
    hermes_home,
    opencode_db,
)

log = logging.getLogger("funes.integrations.hook_worker")

SETTLE_S = 1.5
CATCH_UP_BUDGET_S = 60.0
# Nobody waits on the worker, so it may wait long for a `funes index` run to finish writing.
WRITER_WAIT_S = 600.0


class WriterBusy(Exception):
    """The memory stayed locked by another writer; the entries stay queued for a later worker."""


@contextmanager
def worker_lock() -> Iterator[bool]:
    """Yield True when this process is now the one worker draining the queue, else False."""
    folder = queue_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".worker.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def pending_entries() -> list[Path]:
    folder = queue_dir()
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def resolve_transcript(entry: dict[str, Any]) -> Path | None:
    """The unit to index for one spool entry, from its path or, failing that, its session id."""
    given = entry.get("transcript_path")
    if given:
        return Path(given)
    session = entry.get("session_id")
    harness = harness_of(entry)
    if harness == "hermes":
        return hermes_home() / "state.db"
    if harness == "opencode":
        return opencode_db()
    if not session:
        return None
    if harness == "claude_code":
        return next(iter(sorted(claude_home().glob(f"projects/*/{session}.jsonl"))), None)
    if harness == "copilot":  # sessionEnd names only the session, whose folder holds the file
        return copilot_home() / "session-state" / session / "events.jsonl"
    if harness == "codex":  # notify gives only the thread id, which names the rollout file
        found = sorted(codex_home().glob(f"sessions/*/*/*/rollout-*{session}.jsonl*"))
        return found[0] if found else None
    return None


def harness_of(entry: dict[str, Any]) -> str:
    """The stored facet for the agent that queued `entry` (claude → claude_code)."""
    agent = str(entry.get("agent") or "")
    return HARNESS_ALIASES.get(agent, agent)


def _read_entry(path: Path) -> dict[str, Any] | None:
    try:
        entry = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        log.warning("skipping unreadable spool entry %s: %s", path.name, error)
        _set_aside(path)
        return None
    return entry if isinstance(entry, dict) else None


def _set_aside(path: Path) -> None:
    failed = path.parent / "failed"
    failed.mkdir(exist_ok=True)
    os.replace(path, failed / path.name)


def _index_paths(paths: list[Path]) -> None:
    from funes.index.indexer import index
    from funes.integrations.targets import group_by_target

    # Each agent's turns go to the memory it is bound to (a local folder, or the default one).
    for target, group in group_by_target(paths).items():
        report = index(paths=group, lock_wait_s=WRITER_WAIT_S, memory_path=target, maintain=False)
        _touched.add(target)
        log.info("indexed %s: %s", ", ".join(str(p) for p in group), report)


def _catch_up(harness: str) -> None:
    from funes.index.indexer import index
    from funes.integrations.targets import harness_target

    target = harness_target(harness)
    report = index(
        harness=harness,
        budget_s=CATCH_UP_BUDGET_S,
        lock_wait_s=WRITER_WAIT_S,
        memory_path=target,
        maintain=False,
    )
    _touched.add(target)
    log.info("catch-up %s: %s", harness, report)


def drain_once() -> list[Path]:
    """Index everything queued now; return the transcripts indexed (for the settle pass)."""
    files = pending_entries()
    if not files:
        return []
    entries = [(f, e) for f in files if (e := _read_entry(f)) is not None]
    fired = sorted({f"{e.get('agent')} {e.get('event') or '(no event)'}" for _, e in entries})
    log.info("draining %d queued firing(s): %s", len(entries), ", ".join(fired))
    transcripts: list[Path] = []
    catch_up: set[str] = set()
    for _, entry in entries:
        transcript = resolve_transcript(entry)
        if transcript is not None and transcript.exists() and transcript not in transcripts:
            transcripts.append(transcript)
        elif transcript is None or not transcript.exists():
            catch_up.add(harness_of(entry))
        if entry.get("catch_up"):
            catch_up.add(harness_of(entry))
    from funes.index.lock import LockBusy

    try:
        if transcripts:
            _index_paths(transcripts)
        for harness in sorted(h for h in catch_up if h):
            _catch_up(harness)
    except LockBusy as error:
        raise WriterBusy(str(error)) from None
    except Exception:
        log.exception("indexing failed; entries set aside in queue/failed/")
        for file, _ in entries:
            _set_aside(file)
        return []
    for file, _ in entries:
        file.unlink(missing_ok=True)
    _publish_bound_memories(entries)
    return transcripts


def _publish_bound_memories(entries: list[tuple[Path, dict[str, Any]]]) -> None:
    """Push a Hub memory an agent is bound to at its session boundary, or at the latest every
    PUBLISH_INTERVAL_S for agents whose hooks give no clean end-of-session event."""
    from funes.integrations.agents import bound_memory
    from funes.memory_spec import is_remote_spec

    for agent in sorted({str(e.get("agent") or "") for _, e in entries}):
        spec = bound_memory(agent) if agent else None
        if not spec or not is_remote_spec(spec):
            continue
        ended = any(e.get("catch_up") for _, e in entries if e.get("agent") == agent)
        from funes.memory_spec import parse_remote_spec
        from funes.sync.push import push_stamp

        stamp = push_stamp(parse_remote_spec(spec))
        try:
            due = time.time() - stamp.stat().st_mtime >= PUBLISH_INTERVAL_S
        except FileNotFoundError:
            due = True
        if not (ended or due):
            continue
        try:
            from funes.sync.push import publish_in_background

            pid = publish_in_background(spec)
        except Exception:
            log.exception("could not start the push of %s", spec)
            continue
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
        log.info("publishing %s for %s in the background (pid %d)", spec, agent, pid)


def drain() -> int:
    """Drain until the queue stays empty; return the number of passes that indexed something."""
    passes = 0
    while True:
        indexed: list[Path] = []
        with worker_lock() as mine:
            if not mine:
                return passes  # the holder re-checks the queue after it releases the lock
            try:
                while pending_entries():
                    indexed.extend(drain_once())
                    passes += 1
            except WriterBusy as error:
                log.warning("%s; leaving the queue for the next hook", error)
                return passes
            if indexed:
                time.sleep(SETTLE_S)
                _settle(indexed)
        if not pending_entries():
            return passes


# A bound Hub memory is pushed at least this often while its agent keeps firing hooks.
PUBLISH_INTERVAL_S = 15 * 60.0
# Entries set aside after a failure are tried again this many times, at most once per interval.
RETRY_ATTEMPTS = 3
RETRY_AFTER_S = 60.0

# The memories this worker appended to (None: the default local one), for maintenance.
_touched: set[Path | None] = set()


def _settle(paths: list[Path]) -> None:
    unique = list(dict.fromkeys(paths))
    try:
        _index_paths(unique)
    except Exception:
        log.exception("settle pass failed")


def main() -> int:
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s worker[%(process)d] %(levelname)s %(message)s",
    )
    try:
        requeue_failed()
        # Maintenance only while no new turn waits; then drain again, so an entry queued while
        # this worker was busy (its hook saw a running worker and started none) is not stranded.
        while drain():
            maintain_touched()
    except Exception:
        log.exception("worker failed")
        return 1
    return 0


def maintain_touched() -> None:
    """Index upkeep for the memories just appended to, when due (`funes.index.maintenance`):
    a turn is searchable as soon as it is appended, so this never delays one."""
    from funes.index.lock import LockBusy, writer_lock
    from funes.index.maintenance import maintain
    from funes.index.store import ChunkStore, MemoryNotFound

    with worker_lock() as mine:
        if not mine:
            return  # another worker is draining; it maintains after
        for target in sorted(_touched, key=lambda t: str(t or "")):
            if pending_entries():
                return  # a new turn first; the next pass comes back here
            try:
                with writer_lock(wait_s=WRITER_WAIT_S):
                    done = maintain(ChunkStore.open(target))
            except (LockBusy, MemoryNotFound) as error:
                log.warning("maintenance skipped: %s", error)
                continue
            except Exception:
                log.exception("maintenance failed; the next run retries")
                continue
            _touched.discard(target)
            if done:
                log.info("maintenance of %s: %s", target or "the local memory", ", ".join(done))


def requeue_failed(now: float | None = None) -> int:
    """Put entries that failed back in the queue, up to RETRY_ATTEMPTS times each, no sooner
    than RETRY_AFTER_S after their last try: a failure is often passing (a full disk, a memory
    another release was repairing), and an entry left in failed/ is a turn never indexed."""
    failed = queue_dir() / "failed"
    if not failed.is_dir():
        return 0
    now = time.time() if now is None else now
    requeued = 0
    for path in sorted(failed.glob("*.json")):
        try:
            entry = json.loads(path.read_text())
            if now - path.stat().st_mtime < RETRY_AFTER_S:
                continue
        except (OSError, ValueError):
            continue  # unreadable: it stays aside for a person to look at
        if not isinstance(entry, dict):
            continue
        attempts = int(entry.get("attempts") or 0) + 1
        if attempts > RETRY_ATTEMPTS:
            continue
        entry["attempts"] = attempts
        target = queue_dir() / path.name
        tmp = target.with_suffix(".retry.tmp")
        tmp.write_text(json.dumps(entry))
        os.replace(tmp, target)
        path.unlink(missing_ok=True)
        requeued += 1
    if requeued:
        log.info("re-queued %d failed entr%s", requeued, "y" if requeued == 1 else "ies")
    return requeued


if __name__ == "__main__":
    sys.exit(main())

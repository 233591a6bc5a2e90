"""Checks of the local memory and of what feeds it: indexes, versions and disk, the indexing
backlog, the writer lock, and the hook queue."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from funes.index.diskfull import size as _size
from funes.inspect.check import Check, warning
from funes.paths import funes_home, local_memory_dir

# A backlog is normal while hooks catch up; one untouched this long means nothing is working it.
STALLED_BACKLOG_S = 24 * 3600
# Queue entries older than this with no worker running are stuck (a worker drains in seconds).
STUCK_QUEUE_S = 10 * 60
# A writer holding the lock this long is probably hung (a full `funes index --all` of a large
# history takes minutes, not hours).
LONG_LOCK_S = 60 * 60
FREE_DISK_MIN = 1 << 30


def home_checks() -> list[Check]:
    """Can funes write where it keeps everything (what `index` needs), and is it private?"""
    home = funes_home()
    if not home.exists():
        return [Check("funes home", True, f"{home} will be created on the first write")]
    if not home.is_dir():
        return [Check("funes home", False, f"{home} is a file", "point FUNES_HOME at a folder")]
    unwritable = []
    for folder in (home, local_memory_dir(), local_memory_dir() / "chunks.lance" / "data"):
        if folder.is_dir() and not _can_write(folder):
            unwritable.append(str(folder))
    if unwritable:
        return [
            Check(
                "funes home",
                False,
                f"cannot write {', '.join(unwritable)}: indexing, forget and repairs fail",
                f"make {home} writable by you (or set FUNES_HOME to a folder you own)",
            )
        ]
    if home.stat().st_mode & 0o077:
        return [
            Check(
                "funes home",
                False,
                f"{home} is readable by other users (mode {home.stat().st_mode & 0o777:o})",
                "`funes doctor --fix` makes it yours alone (so does the next funes write)",
                _tighten_home,
            )
        ]
    return [Check("funes home", True, f"{home}: writable, private to you")]


def _can_write(folder: Path) -> bool:
    """Whether a file can be created in `folder`, tried for real (root passes a mode check
    that a read-only mount still refuses)."""
    probe = folder / f".doctor-probe-{os.getpid()}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


def _tighten_home() -> str:
    from funes.paths import tighten_home

    tighten_home()
    return "removed other users' access"


def memory_checks() -> list[Check]:
    from funes.index.store import ChunkStore, memory_exists

    path = local_memory_dir()
    if not memory_exists(path):
        return [
            Check(
                "memory",
                False,
                f"no memory at {path}",
                "run `funes add <agent>` (or `funes index`) to build it",
            )
        ]
    try:
        store = ChunkStore.open(path)
        rows = store.count()
    except Exception as error:
        from funes.lance import without_source_paths

        reason = without_source_paths(str(error).strip().splitlines()[0] if str(error) else "")
        return [
            Check(
                "memory",
                False,
                f"{path}: its newest version cannot be opened ({reason[:160]})",
                "`funes doctor --fix` falls back to the newest earlier version that reads whole "
                "(`funes index` then restores the newest turns from the transcripts); if none "
                f"does, move {path} aside and rebuild it with `funes index --all`",
                _fall_back_repair,
            )
        ]
    checks = [_model_check(store, rows, path), _data_check(store, rows, path)]
    checks += _index_checks(store, rows)
    return checks


def _data_check(store: Any, rows: int, path: Path) -> Check:
    """Every stored row read back, every column: a truncated or damaged data file (a full disk,
    a copy cut short) shows here, not only when a recall happens to touch it. About a second per
    100k chunks."""
    from funes.index.integrity import unreadable_data

    damage = unreadable_data(store)
    if damage:
        salvage = (
            "`funes doctor --fix` keeps every row that still reads (the damaged table is moved "
            "aside, nothing is deleted), then `funes index --all` restores the lost rows from "
            "the transcripts still on disk"
        )
        return Check("stored data", False, f"{path}: {damage}", salvage, _salvage_repair)
    return Check("stored data", True, f"all {rows} rows read back")


def _salvage_repair() -> str:
    from funes.index.integrity import salvage
    from funes.index.lock import writer_lock
    from funes.index.state import IndexState
    from funes.index.store import ChunkStore
    from funes.inspect.storage import maintain

    with writer_lock(wait_s=30.0):
        saved = salvage(local_memory_dir())
        state = IndexState.load()
        state.read_everything_again()  # the rows the lost files held come back from transcripts
        state.save()
        maintain(ChunkStore.open(local_memory_dir()))  # the indexes, for the rows kept
    return (
        f"kept the {saved.kept} rows that read; {saved.lost_files} data file(s) could not be "
        "read: run `funes index --all` to restore their rows from the transcripts still on "
        f"disk; the damaged table is at {saved.aside.parent} (delete it when satisfied: "
        "`funes forget` does not look there)"
    )


def _fall_back_repair() -> str:
    from funes.index.integrity import fall_back
    from funes.index.lock import writer_lock
    from funes.index.state import IndexState
    from funes.index.store import ChunkStore
    from funes.inspect.storage import maintain

    with writer_lock(wait_s=30.0):
        moved = fall_back(local_memory_dir())
        if moved is None:
            return "no earlier version reads whole either; nothing was changed"
        state = IndexState.load()
        state.read_everything_again()  # the rows only the damaged versions held come back
        state.save()
        maintain(ChunkStore.open(local_memory_dir()))  # indexes the earlier version lacked
    return (
        f"set {moved} damaged version(s) aside; run `funes index --all` to restore what "
        "they held from the transcripts"
    )


def _model_check(store: object, rows: int, path: Path) -> Check:
    from funes.index.embed import load_embedder

    model_id = getattr(store, "model_id", "") or "the bundled model"
    try:
        store.check_model(load_embedder(getattr(store, "model_id", "") or None))  # type: ignore[attr-defined]
    except Exception as error:
        return Check(
            "memory",
            False,
            f"{path}: {rows} chunks, but new turns cannot be embedded: {error}",
            "install the model the memory was built with, or rebuild it (`funes index --all` "
            "after moving the folder aside)",
        )
    return Check("memory", True, f"{path}: {rows} chunks, embedded with {model_id}")


def _index_checks(store: object, rows: int) -> list[Check]:
    from funes.index.integrity import unreadable_indexes
    from funes.index.maintenance import health
    from funes.inspect.storage import VERSIONS_WARN, old_versions

    view = health(store)
    due = list(view.due)
    repair = _maintain_repair()
    broken = {index.column: index for index in unreadable_indexes(store)}

    def take(step: str) -> bool:
        if step in due:
            due.remove(step)
            return True
        return False

    if "text" in broken:
        fulltext = Check(
            "full-text index",
            False,
            f"cannot be read ({broken.pop('text').error[:160]}): recall finds passages by "
            "vector search only",
            "`funes doctor --fix` rebuilds it from the stored rows",
            repair,
        )
    elif rows == 0:
        fulltext = Check("full-text index", True, "nothing to index yet (the memory is empty)")
    elif take("build full-text index") or not view.fts_indexed:
        fulltext = Check(
            "full-text index",
            False,
            "missing: recall finds passages by vector search only",
            "`funes doctor --fix` rebuilds it (or `funes index`)",
            repair,
        )
    elif take("fold new rows into the indexes"):
        fulltext = Check(
            "full-text index",
            False,
            f"{view.fts_unindexed} of {rows} rows wait to be folded into the indexes "
            f"({view.fragments} fragments): recall still finds them, more slowly",
            "`funes doctor --fix` folds them in (the next `funes index` does too)",
            repair,
        )
    else:
        tail = (
            f"; the {view.fts_unindexed} newest are searched by scan" if view.fts_unindexed else ""
        )
        fulltext = Check("full-text index", True, f"covers {rows - view.fts_unindexed} rows{tail}")
    if take("build vector index"):
        vector = Check(
            "vector index",
            False,
            f"none over {rows} rows: exact vector search now costs more than an index",
            "`funes doctor --fix` builds it (or `funes index`)",
            repair,
        )
    else:
        vector = Check(
            "vector index",
            True,
            "ANN index present"
            if view.vector_index
            else f"none: vector search is exact over {rows} rows (no index needed yet)",
        )
    checks = [fulltext, vector]
    if broken:
        names = ", ".join(f"{i.name} ({i.error[:120]})" for i in broken.values())
        checks.append(
            Check(
                "indexes",
                False,
                f"cannot be read: {names}: recall fails",
                "`funes doctor --fix` rebuilds them from the stored rows",
                repair,
            )
        )
    if due:
        checks.append(
            Check(
                "storage upkeep",
                False,
                "due: " + ", ".join(due),
                "`funes doctor --fix` does it (or `funes index`)",
                repair,
            )
        )
    old = old_versions(store)
    usage = shutil.disk_usage(store.path)  # type: ignore[attr-defined]
    detail = (
        f"{_size(view.disk_bytes)} on disk, {view.versions} versions ({old} old), "
        f"{view.fragments} fragments; {_size(usage.free)} free"
    )
    if usage.free < FREE_DISK_MIN:
        checks.append(
            Check("disk", False, detail, "free disk space: indexing stops when the disk is full")
        )
    elif view.versions > VERSIONS_WARN and old:
        checks.append(
            Check(
                "disk",
                False,
                detail,
                "`funes doctor --fix` drops the old versions",
                repair,
            )
        )
    else:
        checks.append(Check("disk", True, detail))
    return checks


def _maintain_repair():  # -> Callable[[], str]
    def repair() -> str:
        from funes.index.integrity import rebuild_indexes, unreadable_indexes
        from funes.index.lock import writer_lock
        from funes.index.store import ChunkStore
        from funes.inspect.storage import maintain

        with writer_lock(wait_s=30.0):
            store = ChunkStore.open(local_memory_dir())
            done = rebuild_indexes(store, unreadable_indexes(store))
            done += maintain(store)
        return "; ".join(done) or "nothing needed doing"

    return repair


def backlog_checks() -> list[Check]:
    """Transcripts not yet read to the end, and passages without second-pass vectors."""
    from funes.index.state import IndexState

    state = IndexState.load()
    checks: list[Check] = []
    pending = len(state.pending)
    last = state.last_indexed or ""
    stalled = pending and _age_s(last) > STALLED_BACKLOG_S
    detail = f"{pending} transcript(s) wait to be indexed" if pending else "none"
    if last:
        detail += f"; last indexed {last}"
    checks.append(
        Check(
            "index backlog",
            not stalled,
            detail + (" (nothing has worked on it for a day)" if stalled else ""),
            "run `funes index --all` (hooks only catch up while their agent runs)"
            if stalled
            else "",
        )
    )
    checks.append(_second_pass_check())
    checks.append(_skipped_check(state.skipped))
    return checks


def _skipped_check(skipped: dict[str, list[str]]) -> Check:
    """Transcript lines (or whole transcripts) the indexer could not read and left out."""
    if not skipped:
        return Check("unreadable transcripts", True, "none")
    lines = [w for warnings in skipped.values() for w in warnings]
    shown = "; ".join(lines[:3]) + (f"; … {len(lines) - 3} more" if len(lines) > 3 else "")
    # A warning about a whole transcript starts with its path and a colon; one about a place in
    # it (`file:line`, `db:table:rowid`) names that place.
    whole = {
        key
        for key, warnings in skipped.items()
        if any(w.startswith(f"{key}: ") and not w.endswith("like this)") for w in warnings)
    }
    parts = []
    if len(skipped) > len(whole):
        parts.append(
            f"{len(skipped) - len(whole)} transcript(s) hold lines or rows funes could not read "
            "and left out (the rest of each is indexed)"
        )
    if whole:
        parts.append(f"{len(whole)} transcript(s) could not be read at all")
    return warning(
        "unreadable transcripts",
        f"{'; '.join(parts)}: {shown}",
        "repair or delete those lines in the agent's transcript if they matter, then `funes index`",
    )


def _second_pass_check() -> Check:
    """Which second pass recall runs (nothing is precomputed, so nothing can fall behind)."""
    try:
        from funes.retrieve import second_pass_status

        status = second_pass_status()
    except Exception as error:
        return Check(
            "second pass", True, f"status unavailable ({error}); recall uses its first pass"
        )
    if status.get("note"):
        return Check(
            "second pass",
            False,
            str(status["note"]),
            "fix or unset FUNES_RERANKER (recall ranks by its first pass meanwhile)",
        )
    return Check("second pass", True, str(status.get("summary") or status.get("kind") or "none"))


def _age_s(iso: str) -> float:
    from datetime import UTC, datetime

    if not iso:
        return float("inf")
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return float("inf")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (datetime.now(UTC) - moment).total_seconds()


# -- locks ------------------------------------------------------------------------------------


def lock_holder(path: Path) -> tuple[bool, int | None, float]:
    """(held, holder pid as written in the file, seconds since it was taken) for a flock file.

    The kernel drops a flock when its holder dies, so a lock whose holder is dead is already
    free: a file naming a dead pid is harmless and needs no clearing.
    """
    if not path.exists():
        return False, None, 0.0
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            held = True
        else:
            held = False
            fcntl.flock(fd, fcntl.LOCK_UN)
        text = os.read(fd, 64).decode(errors="replace").strip()
    finally:
        os.close(fd)
    pid = int(text) if text.isdigit() else None
    return held, pid, time.time() - path.stat().st_mtime


def _describe_pid(pid: int | None) -> str:
    if pid is None:
        return "a process"
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        command = " ".join(p.decode(errors="replace") for p in raw.split(b"\0") if p)
    except OSError:
        command = ""
    return f"pid {pid}" + (f" ({command[:80]})" if command else "")


def lock_checks() -> list[Check]:
    from funes.index.lock import lock_path

    path = lock_path()
    held, pid, age = lock_holder(path)
    if not held and path.parent.is_dir():
        try:
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        except OSError as error:
            return [
                Check(
                    "writer lock",
                    False,
                    f"{path} cannot be taken ({error.strerror}): no write can start",
                    f"make {path.parent} writable by you",
                )
            ]
    if not held:
        return [Check("writer lock", True, "free")]
    who = _describe_pid(pid)
    if age > LONG_LOCK_S:
        return [
            Check(
                "writer lock",
                False,
                f"held by {who} for {age / 3600:.1f} h: indexing waits behind it",
                f"if that process is stuck, stop it (`kill {pid}`); the lock frees itself when "
                "its holder exits"
                if pid
                else "stop the stuck funes process; the lock frees itself when it exits",
            )
        ]
    return [Check("writer lock", True, f"held by {who} for {age:.0f} s (a write in progress)")]


# -- hook queue ------------------------------------------------------------------------------


def queue_checks() -> list[Check]:
    from funes.integrations.hook import queue_dir

    folder = queue_dir()
    entries = sorted(folder.glob("*.json")) if folder.is_dir() else []
    worker_held, _pid, _age = lock_holder(folder / ".worker.lock")
    checks: list[Check] = []
    if not entries:
        checks.append(Check("hook queue", True, "empty"))
    else:
        oldest = max(time.time() - _mtime(p) for p in entries)
        detail = f"{len(entries)} turn(s) queued, oldest {oldest / 60:.0f} min ago"
        if worker_held:
            checks.append(Check("hook queue", True, f"{detail}; the worker is draining it"))
        elif oldest > STUCK_QUEUE_S:
            checks.append(
                Check(
                    "hook queue",
                    False,
                    f"{detail}, and no worker is running",
                    "`funes doctor --fix` starts the worker (see logs/worker.log if it stops)",
                    _start_worker,
                )
            )
        else:
            checks.append(Check("hook queue", True, f"{detail}; a worker starts on the next hook"))
    failed = sorted((folder / "failed").glob("*.json")) if (folder / "failed").is_dir() else []
    retryable = [f for f in failed if _readable(f)]
    log = funes_home() / "logs" / "worker.log"
    if retryable:
        checks.append(
            Check(
                "failed hook entries",
                False,
                f"{len(failed)} queued turn(s) failed to index ({_failed_agents(failed)}); "
                f"the reason is in {log}",
                "`funes doctor --fix` puts them back in the queue and starts the worker",
                _retry_failed,
            )
        )
    elif failed:
        checks.append(
            Check(
                "failed hook entries",
                False,
                f"{len(failed)} unreadable entr{'y' if len(failed) == 1 else 'ies'} in "
                f"{folder / 'failed'}: retrying cannot help",
                f"look at them, then delete them (`rm {folder / 'failed'}/*.json`)",
            )
        )
    else:
        checks.append(Check("failed hook entries", True, "none"))
    return checks


def _readable(path: Path) -> bool:
    try:
        return isinstance(json.loads(path.read_text()), dict)
    except (OSError, ValueError):
        return False


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()


def _failed_agents(files: list[Path]) -> str:
    agents: dict[str, int] = {}
    for file in files:
        try:
            agent = str(json.loads(file.read_text()).get("agent") or "?")
        except (OSError, ValueError, AttributeError):
            agent = "unreadable"
        agents[agent] = agents.get(agent, 0) + 1
    return ", ".join(f"{agent}: {n}" for agent, n in sorted(agents.items()))


def _retry_failed() -> str:
    from funes.integrations.hook import queue_dir

    folder = queue_dir()
    moved = 0
    for file in sorted((folder / "failed").glob("*.json")):
        if not _readable(file):
            continue  # retrying cannot help: it stays for a person to look at
        os.replace(file, folder / file.name)
        moved += 1
    started = _start_worker() if moved else ""
    return f"moved {moved} entr{'y' if moved == 1 else 'ies'} back to the queue" + (
        f"; {started}" if started else ""
    )


def _start_worker() -> str:
    from funes.integrations.hook import spawn_worker, worker_running

    if worker_running():
        return "the worker is already running"
    spawn_worker()
    return "started the queue worker"


def at_rest_checks() -> list[Check]:
    """Files beside the rows (resume points, curation notes) hold nothing the rows would not:
    no credential, no private span. An older funes stored a transcript's open turn as read; its
    resume points carry no mark and are counted without being read (reading them all takes
    long: `funes scrub` does)."""
    from funes.index.state import uncleaned_resume_points
    from funes.project.curate import unclean_notes

    old = uncleaned_resume_points()
    notes = unclean_notes()
    if not old and not notes:
        return [Check("text at rest", True, "resume points and curation notes hold no secrets")]
    home = funes_home()
    found = [*notes, *old]
    names = ", ".join(str(p.relative_to(home)) for p in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    parts = []
    if notes:
        parts.append(f"{len(notes)} curation file(s) hold a credential or private text")
    if old:
        parts.append(
            f"{len(old)} resume point(s) written by an older funes may hold a transcript's "
            "last turn unredacted"
        )
    return [
        Check(
            "text at rest",
            False,
            f"{'; '.join(parts)} ({names}{more})",
            "run `funes scrub` (or `funes doctor --fix`): it cleans them as the rows are",
            repair=_clean_files_repair,
            warn=not notes,
        )
    ]


def _clean_files_repair() -> str:
    from funes.index.lock import writer_lock
    from funes.sync.scrub import unclean_files

    with writer_lock():
        return f"cleaned {len(unclean_files(fix=True))} file(s)"

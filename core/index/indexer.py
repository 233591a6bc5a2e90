"""Index transcripts into the memory: read new turns, redact, chunk, embed, append.

Incremental by construction: each unit (transcript file, database) is read from where the last
run stopped, only chunks whose ids are not stored yet are embedded, and the state is saved only
after the rows it describes are committed. A run killed at any point therefore leaves a readable
memory, and the next run re-reads at most the uncommitted tail without duplicating anything.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from funes.index.chunking import chunk_turn
from funes.index.lead_in import attach_lead_ins
from funes.index.lock import writer_lock
from funes.index.repo import resolve_repo
from funes.index.run_ids import RunIds
from funes.index.state import IndexState, UnitState, state_path, unit_signature
from funes.model import Chunk, Turn
from funes.traces import TraceSource, all_sources
from funes.traces.detect import find_units
from funes.traces.guard import skipped_because
from funes.traces.retention import soonest_deleted_first

# A run with no path stops starting new units after this many seconds (the rest is backlog).
DEFAULT_BUDGET_S = 60.0
# Rows are appended in batches of about this many chunks (fewer, larger Lance fragments).
FLUSH_CHUNKS = 4096
# During a long run the state is saved after a flush at most this often (and always at the
# end): state.json grows with the history, so saving it after every flush cost a first index
# time quadratic in its length. A run killed meanwhile re-reads the units read since the last
# save, and finds their rows already stored.
STATE_SAVE_EVERY_S = 15.0

Progress = Callable[[str, dict[str, Any]], None]


@dataclass
class IndexReport:
    units_total: int = 0
    units_read: int = 0
    units_unchanged: int = 0
    turns: int = 0
    chunks_added: int = 0
    chunks_known: int = 0
    redactions: int = 0
    sessions: set[str] = field(default_factory=set)
    backlog: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    maintenance: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "units_total": self.units_total,
            "units_read": self.units_read,
            "units_unchanged": self.units_unchanged,
            "turns": self.turns,
            "chunks_added": self.chunks_added,
            "chunks_already_indexed": self.chunks_known,
            "redactions": self.redactions,
            "sessions": len(self.sessions),
            "backlog": len(self.backlog),
            "warnings": self.warnings,
            "maintenance": self.maintenance,
            "elapsed_s": round(self.elapsed_s, 3),
        }


@dataclass
class Unit:
    path: Path
    source: TraceSource

    @property
    def key(self) -> str:
        return str(self.path)


def discover_units(paths: Iterable[Path] | None = None, harness: str | None = None) -> list[Unit]:
    """Units under `paths` (or every agent's default roots), newest first, except that those
    their agent deletes within a few days come first, soonest first.

    Each folder is walked once for all the sources that look in it (`find_units`): a named
    folder for every source, an agent's default root for that agent's source only."""
    sources = [s for s in all_sources() if harness is None or s.harness == harness]
    steps: list[tuple[Path, TraceSource, bool]] = []  # (path, source, a folder?), in order
    if paths is None:
        steps = [(root, s, True) for s in sources for root in s.default_roots() if root.exists()]
    for path in paths or []:
        path = Path(path).expanduser().resolve()
        if not path.exists():
            raise FileNotFoundError(f"no such path: {path}")
        if not path.is_file():
            steps += [(path, source, True) for source in sources]
            continue
        owner = next((s for s in sources if s.owns(path)), None)
        if owner is None:
            raise ValueError(f"{path}: not a transcript funes can read")
        steps.append((path, owner, False))
    wanted: dict[Path, list[str]] = {}
    for path, source, folder in steps:
        if folder:
            wanted.setdefault(path, []).append(source.harness)
    found = {folder: find_units(folder, harnesses) for folder, harnesses in wanted.items()}
    units: dict[str, Unit] = {}
    for path, source, folder in steps:
        for unit in source.select(found[path][source.harness]) if folder else [path]:
            units.setdefault(str(unit), Unit(unit, source))

    def mtime(unit: Unit) -> float:
        try:
            return unit.path.stat().st_mtime
        except OSError:
            return 0.0

    newest = sorted(units.values(), key=mtime, reverse=True)
    # What an agent is about to delete (Claude Code's cleanupPeriodDays, …) goes first.
    return soonest_deleted_first(newest, lambda unit: (unit.source.harness, unit.path))


def index(
    paths: Iterable[Path | str] | None = None,
    *,
    harness: str | None = None,
    budget_s: float | None = None,
    everything: bool = False,
    progress: Progress | None = None,
    memory_path: Path | None = None,
    lock_wait_s: float = 10.0,
    model: str | None = None,
    maintain: bool = True,
) -> IndexReport:
    """Index new turns into the local memory.

    With `paths`, every unit under them is read in full. Without, every agent's transcripts
    are swept newest first (what an agent deletes within days before all) until `budget_s`
    (default 60 s) runs out, unless `everything`; what is left is recorded as the backlog that
    later runs finish. `model` picks the
    embedding model when the memory is created (default: the bundled one); an existing memory
    always keeps its own. `maintain=False` leaves index upkeep (`funes.index.maintenance`) to
    the caller: the hook worker runs it once the queue is empty, so a turn never waits on it.
    """
    started = time.monotonic()
    report = IndexReport()
    notify = progress or (lambda _event, _info: None)
    explicit = paths is not None
    units = discover_units([Path(p) for p in paths] if paths is not None else None, harness)
    report.units_total = len(units)
    budget = None if (explicit or everything) else (budget_s or DEFAULT_BUDGET_S)

    with writer_lock(wait_s=lock_wait_s):
        run = _IndexRun(report, notify, memory_path, model)
        notify("start", {"units": len(units)})
        try:
            for position, unit in enumerate(units):
                # Every run reads at least one unit, so a backlog always shrinks.
                over_budget = budget is not None and time.monotonic() - started > budget
                if over_budget and report.units_read > 0:
                    report.backlog = [u.key for u in units[position:] if run.needs_reading(u)]
                    break
                run.index_unit(unit)
                notify("unit", {"done": position + 1, "units": len(units), "path": unit.key})
            run.finish(maintain)
        except (OSError, RuntimeError) as error:
            from funes.index.diskfull import disk_full, is_disk_full, needed_for_memory

            if not is_disk_full(error):
                raise
            # What was committed before the disk filled is recorded, so the next run neither
            # reads it again nor counts it in the room it needs (the state is small: there is
            # usually room for it; when not, it stays as the last run left it).
            with contextlib.suppress(OSError):
                run.save_state()
            unread = [u.path for u in units if run.needs_reading(u)]
            stored = "" if unread else "every new turn was stored, only upkeep is left; "
            needed = needed_for_memory(run.store.path, unread)
            raise disk_full(run.store.path, needed, stored) from None
    report.elapsed_s = time.monotonic() - started
    notify("end", report.as_dict())
    return report


class _IndexRun:
    """One indexing run: buffers chunks, embeds and appends in batches, saves state after."""

    def __init__(
        self, report: IndexReport, notify: Progress, memory_path: Path | None, model: str | None
    ) -> None:
        from funes.index.embed import load_embedder
        from funes.index.redact import redact
        from funes.index.store import ChunkStore, ModelMismatch, memory_exists
        from funes.index.tombstones import TurnGate
        from funes.paths import local_memory_dir

        self.report = report
        self.notify = notify
        self.redact = redact
        path = memory_path or local_memory_dir()
        # Forgotten sessions/folders/periods are never stored again; private spans never at all.
        self.gate = TurnGate.for_memory(path)
        if memory_exists(path):
            # An existing memory keeps the model it was created with.
            self.store = ChunkStore.open(path)
            if model and self.store.model_id and model != self.store.model_id:
                raise ModelMismatch(
                    f"the memory at {path} uses embedding model {self.store.model_id}, not "
                    f"{model}; to switch, move {path} aside and run `funes index --all "
                    f"--model {model}`"
                )
            self.embedder = load_embedder(self.store.model_id or None)
            self.store.check_model(self.embedder)
            self.state = IndexState.load(state_path(path))
            self._upgrade()
        else:
            self.embedder = load_embedder(model)
            self.store = ChunkStore.create_or_open(path, self.embedder)
            # A memory deleted while its state survived is rebuilt in full.
            self.state = IndexState(path=state_path(path))
        # "Stored already?" asks the memory as it was when the run started (its indexes cover
        # it) and the run's own record of what it appended (funes.index.run_ids), never the
        # rows this run wrote, which no index covers until the run ends.
        self.stored_before = None if self.store.count() == 0 else self.store.snapshot()
        self.appended = RunIds()
        self.buffer: list[Chunk] = []
        self.buffer_ids: set[str] = set()
        self.pending_states: dict[str, UnitState] = {}
        self.saved_at = time.monotonic()

    def needs_reading(self, unit: Unit) -> bool:
        recorded = self.state.units.get(unit.key)
        return recorded is None or recorded.signature != unit_signature(unit.path)

    def index_unit(self, unit: Unit) -> None:
        signature = unit_signature(unit.path)
        recorded = self.state.units.get(unit.key)
        if recorded is not None and recorded.signature == signature:
            self.report.units_unchanged += 1
            return
        same_reader = recorded is not None and recorded.harness == unit.source.harness
        resume = self.state.resume_of(unit.key) if same_reader else None
        try:
            result = unit.source.read(unit.path, resume or None)
        except Exception as error:  # sources skip bad records themselves; this is the last net
            if not unit.path.exists():
                # Deleted (or moved) since the sweep listed it: nothing left to read.
                self.report.warnings.append(f"{unit.key}: vanished while indexing; skipped")
                self.state.skipped.pop(unit.key, None)
                return
            # One transcript funes cannot read must never stop the rest from being indexed;
            # it is not recorded as read, so every later run tries it again.
            why = f"cannot be read ({type(error).__name__}: {str(error)[:120]}); skipped"
            self.report.warnings.append(f"{unit.key}: {why}")
            self.state.note_skipped(unit.key, [f"{unit.key}: {why}"])
            return
        self.report.units_read += 1
        self.report.warnings.extend(result.warnings)
        if not resume:  # read from its start: what earlier reads could not read is moot
            self.state.skipped.pop(unit.key, None)
        elif unit.key in self.state.skipped:  # an earlier run that could not read it at all
            kept = [
                w
                for w in self.state.skipped[unit.key]
                if not w.startswith(f"{unit.key}: ") or w.endswith("like this)")
            ]
            self.state.skipped[unit.key] = kept
            if not kept:
                del self.state.skipped[unit.key]
        self.state.note_skipped(unit.key, [w for w in result.warnings if _left_out(w)])
        chunks: list[Chunk] = []
        sessions: set[str] = set(recorded.sessions) if recorded else set()
        for turn in self.gate.admit(result.turns):
            try:
                self._redact_turn(turn)
                chunks.extend(chunk_turn(turn, self._repo_for(turn.workdir)))
            except Exception as error:  # one turn that cannot be chunked costs only itself
                self._skip(
                    unit.key, f"{unit.key}: turn {turn.turn_uuid!r}: {skipped_because(error)}"
                )
                continue
            sessions.add(turn.session_id)
        attach_lead_ins(chunks)
        self.report.turns += len(result.turns)
        self.report.sessions.update(sessions)
        self._queue(chunks)
        self.pending_states[unit.key] = UnitState(
            harness=unit.source.harness,
            signature=signature if result.complete else "",
            resume=result.resume,
            indexed_at=_now(),
            sessions=sorted(sessions),
        )
        if len(self.buffer) >= FLUSH_CHUNKS:
            self.flush()

    def _skip(self, key: str, warning: str) -> None:
        """A part of unit `key` left out: said now, and kept for `funes doctor`."""
        self.report.warnings.append(warning)
        self.state.note_skipped(key, [warning])

    def _upgrade(self) -> None:
        """A memory from before lead-ins gets them from its stored rows (once, then indexed
        with the next maintenance); one from before tool-use ids gets their column."""
        from funes.index.upgrade import add_tool_use_ids, backfill_lead_ins

        def step(done: int, total: int) -> None:
            self.notify("maintain", {"step": f"adding lead-ins ({done}/{total} sessions)"})

        backfill_lead_ins(self.store.table, step)
        add_tool_use_ids(self.store.table)

    def finish(self, maintain: bool) -> None:
        self.flush()
        self.state.pending = list(self.report.backlog)
        self.state.last_indexed = _now() if self.report.chunks_added else self.state.last_indexed
        self.save_state()
        if maintain:
            # Also when nothing was added: a run killed while building an index left it
            # missing, and this is where it comes back.
            from funes.index.embed import release_word_caches
            from funes.index.maintenance import maintain as run_maintenance

            release_word_caches()  # the index builds peak higher than embedding did

            def step(name: str) -> None:
                self.notify("maintain", {"step": name})

            self.report.maintenance = run_maintenance(self.store, progress=step)
            self._check_readable()

    def _check_readable(self) -> None:
        """What recall opens must open: an index that lost its files is rebuilt from the rows
        (nothing is lost), a data file that cannot be read fails the run (after the new rows
        are stored) instead of leaving recall to find out."""
        from funes.index.integrity import rebuild_indexes, unreadable_data, unreadable_indexes
        from funes.index.store import MemoryUnavailable

        broken = unreadable_indexes(self.store)
        if broken:
            self.report.maintenance += rebuild_indexes(self.store, broken)
        damage = unreadable_data(self.store, ["id"])
        if damage:
            path = self.store.path
            raise MemoryUnavailable(
                f"memory {path} is damaged ({damage}); the new turns were stored, but rows "
                "are lost: `funes doctor --fix` keeps every row that still reads, then "
                "`funes index --all` restores the rest from the transcripts still on disk"
            )

    def _redact_turn(self, turn: Turn) -> None:
        for block in turn.blocks:
            cleaned, findings = self.redact(block.text)
            if findings:
                block.text = cleaned
                self.report.redactions += len(findings)

    def _repo_for(self, workdir: str) -> str:
        if workdir not in self.state.repos:
            self.state.repos[workdir] = resolve_repo(workdir)
        return self.state.repos[workdir]

    def _queue(self, chunks: list[Chunk]) -> None:
        fresh = [c for c in chunks if c.id not in self.buffer_ids]
        if fresh:
            known: set[str] = set()
            if self.stored_before is not None:
                known = self.stored_before.known_ids(c.id for c in fresh)
            repeated = self.appended.candidates([c.id for c in fresh if c.id not in known])
            if repeated:
                known |= self.store.known_ids(repeated)
            self.report.chunks_known += len(known)
            fresh = [c for c in fresh if c.id not in known]
        # One chunk id per coordinate even if a turn was emitted twice within one read.
        unique: dict[str, Chunk] = {}
        for chunk in fresh:
            unique.setdefault(chunk.id, chunk)
        self.buffer.extend(unique.values())
        self.buffer_ids.update(unique)

    def flush(self) -> None:
        if self.buffer:
            self.notify("embed", {"chunks": len(self.buffer)})
            vectors = self.embedder.encode([c.text for c in self.buffer])
            refused = self.store.add_storable(self.buffer, vectors)
            for warning in refused:
                self._skip(warning.split(": session ", 1)[0], warning)
            self.appended.add(self.buffer_ids)
            self.report.chunks_added += len(self.buffer) - len(refused)
            self.buffer = []
            self.buffer_ids = set()
        # State only after the rows it describes are committed.
        for key, unit_state in self.pending_states.items():
            self.state.record(key, unit_state)
        self.pending_states = {}
        if time.monotonic() - self.saved_at >= STATE_SAVE_EVERY_S:
            self.save_state()

    def save_state(self) -> None:
        self.state.save()
        self.saved_at = time.monotonic()


def _left_out(warning: str) -> bool:
    """A warning about something not indexed (a place skipped, or the count of more like it)."""
    return warning.endswith("skipped") or (
        warning.endswith(" more line(s) like this)") and "skipped (" in warning
    )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

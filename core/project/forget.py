"""`forget`: take a session, a project folder or everything before a time out of a memory.

Order matters for "never comes back": the tombstone is written first (from then on no indexing
run stores a matching turn), then the rows are removed, all under the writer lock; a removal
that fails takes the tombstone back. Removing is more than a Lance delete,
which only marks rows deleted: the fragments that held them are rewritten without them, the
full-text index is rebuilt, and every older version is pruned, so the text is gone from disk.
Curation notes naming a removed session are taken out, and resume points that carried it.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from funes.index.tombstones import LOCAL, Tombstone, memory_key, save

# How long a forget waits for a running index (or hook worker) to finish writing.
LOCK_WAIT_S = 120.0


class ForgetError(ValueError):
    """Bad input (nothing changed); the message is fit for the user."""


@dataclass
class ForgetPlan:
    tombstone: Tombstone
    label: str  # the memory, as printed
    ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    store: Any = None  # the ChunkStore rows are removed from (None: nothing stored yet)
    remote: str | None = None  # hf:// URI when the memory is a remote's local copy

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def sessions(self) -> list[str]:
        return self.tombstone.sessions


def plan(
    memory: str | None = None,
    *,
    session: str | None = None,
    project: str | None = None,
    before: str | None = None,
    now: datetime | None = None,
) -> ForgetPlan:
    """What `forget` would remove (nothing is changed). Exactly one criterion is required."""
    given = [(k, v) for k, v in (("session", session), ("project", project), ("before", before))]
    chosen = [(k, v.strip()) for k, v in given if v is not None and v.strip()]
    if len(chosen) != 1:
        raise ForgetError("say what to forget: exactly one of --session, --project, --before")
    kind, raw = chosen[0]
    key = memory_key(memory)
    store, label, remote = _open(memory, key)
    value = _value(kind, raw, store, now)
    where = _where(kind, value, _descendants(store, value) if kind == "session" else [])
    rows: list[dict[str, Any]] = []
    if store is not None and where:
        rows = store.scan(["id", "session_id", "text"], where=where).to_pylist()
    if kind == "session" and not rows:
        # A mistyped id must not look forgotten (nor leave a tombstone for a session no one has).
        raise ForgetError(f"no session {value!r} in memory {label}: nothing was forgotten")
    tombstone = Tombstone(
        memory=key,
        kind=kind,
        value=value,
        sessions=sorted({r["session_id"] for r in rows if r["session_id"]}),
        chunk_ids=sorted(r["id"] for r in rows),
    )
    return ForgetPlan(
        tombstone=tombstone,
        label=label,
        ids=tombstone.chunk_ids,
        texts=[r["text"] or "" for r in rows],
        store=store,
        remote=remote,
    )


def forget(
    memory: str | None = None,
    *,
    session: str | None = None,
    project: str | None = None,
    before: str | None = None,
    lock_wait_s: float = LOCK_WAIT_S,
) -> tuple[ForgetPlan, Path]:
    """Plan and apply a forget under the writer lock (waiting up to `lock_wait_s` for a running
    index to finish): no indexing run can add a matching row, or rebuild an index the plan
    reads, between the plan and the last write. `LockBusy` when the wait runs out: nothing
    changed."""
    from funes.index.lock import writer_lock
    from funes.memory_spec import is_remote_spec

    if memory is not None and is_remote_spec(memory):  # a Hub copy has a lock of its own
        found = plan(memory, session=session, project=project, before=before)
        return found, apply(found)
    with writer_lock(wait_s=lock_wait_s):
        found = plan(memory, session=session, project=project, before=before)
        return found, apply(found, locked=True)


def apply(forget_plan: ForgetPlan, *, locked: bool = False) -> Path:
    """Write the tombstone, then remove the rows for good; returns the tombstone's path.

    A tombstone never stands without its rows removed: if removing them fails, it is taken back
    and the error raised (the forget did not happen; running it again finishes it). `locked`:
    the caller already holds the writer lock (taking it again would wait on itself)."""
    path = save(forget_plan.tombstone)
    try:
        _remove(forget_plan, locked)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def _remove(forget_plan: ForgetPlan, locked: bool) -> None:
    if forget_plan.store is not None and forget_plan.ids:
        if forget_plan.remote is None:
            from funes.index.lock import writer_lock

            with contextlib.nullcontext() if locked else writer_lock(wait_s=LOCK_WAIT_S):
                purge_rows(forget_plan.store, forget_plan.ids)
                _forget_resume_points(forget_plan)
                _forget_decisions(forget_plan)
        else:
            from funes.memory_spec import parse_remote_spec
            from funes.project.published import read_state, write_state
            from funes.sync.remote import RemoteCache

            cache = RemoteCache(parse_remote_spec(forget_plan.remote))
            with cache.locked():
                # Readers may hold the copy open: delete (see funes.project.published).
                forget_plan.store.delete_ids(forget_plan.ids)
                # The remote still holds them: the next push publishes the tombstone.
                state = read_state(cache)
                state.unpublished |= set(forget_plan.ids) - state.published
                write_state(cache, state)


def _forget_resume_points(forget_plan: ForgetPlan) -> None:
    """A transcript's resume point carries its open turn (the last one, in full text): drop
    those of the transcripts that held the forgotten sessions. Such a transcript is read again
    from its start when it next grows, and the tombstone keeps the forgotten turns out."""
    from funes.index.state import IndexState, state_path

    state = IndexState.load(state_path(Path(forget_plan.store.path)))
    if state.forget_resume_points(set(forget_plan.sessions)):
        state.save()


def _forget_decisions(forget_plan: ForgetPlan) -> None:
    """Curation decisions name a session and quote its first words: take out those about the
    forgotten sessions (a Hub copy's forget leaves this machine's sessions, and them, alone)."""
    from funes.project.curate import forget_decisions

    forget_decisions(set(forget_plan.sessions))


def purge_rows(store: Any, ids: list[str]) -> None:
    """Remove rows `ids` from disk: rewrite the fragments holding them, rebuild the full-text
    index, prune older versions. (A Lance delete alone leaves the bytes in the data files.)"""
    from funes.index.maintenance import build_lead_in_index
    from funes.index.store import sql_quote

    table = store.table
    doomed = set(ids)
    fragments: set[int] = set()
    sessions: set[str] = set()
    for start in range(0, len(ids), 500):
        where = "id IN (" + ", ".join(sql_quote(i) for i in ids[start : start + 500]) + ")"
        search = table.search().where(where).with_row_id(True).select(["id", "session_id"])
        found = search.limit(500).to_arrow()
        fragments.update(int(r) >> 32 for r in found.column("_rowid").to_pylist())
        sessions.update(found.column("session_id").to_pylist())
    # First, so that a crash never leaves a lead-in quoting a row already gone. It rewrites only
    # rows that stay: the fragments found above still hold every doomed row.
    _clear_orphaned_lead_ins(table, doomed, sessions)
    for fragment in sorted(fragments):
        span = f"_rowid >= {fragment << 32} AND _rowid < {(fragment + 1) << 32}"
        rows = table.search().where(span).select(list(table.schema.names))
        held = rows.limit(max(table.count_rows(), 1)).to_arrow()
        survivors = held.filter(_not_in(held.column("id"), doomed))
        # Survivors first, then the old fragment: a crash in between leaves a duplicate row
        # (harmless, and the next forget cleans it), never a lost one.
        if survivors.num_rows:
            table.add(survivors.cast(table.schema))
        table.delete(span)
    if store.has_fts_index():
        from lancedb.index import FTS

        table.create_index("text", config=FTS(with_position=True), replace=True)
        build_lead_in_index(table)
    else:
        store.ensure_indexes()
    _prune(table)


def _clear_orphaned_lead_ins(table: Any, doomed: set[str], sessions: set[str]) -> int:
    """Clear the lead-in of every row of `sessions` that stays and follows one of the `doomed`
    rows (it quotes a row that is going). Returns how many were cleared."""
    from funes.index.lead_in import COLUMN, READING_ORDER, has_lead_ins, successive_rows
    from funes.index.store import TOOL_USE_ID, sql_quote

    sessions.discard(None)  # a row with no session has no neighbours
    if not doomed or not sessions or not has_lead_ins(table):
        return 0
    where = "session_id IN (" + ", ".join(sql_quote(s) for s in sorted(sessions)) + ")"
    paired = TOOL_USE_ID in table.schema.names
    columns = ["id", *READING_ORDER, "block_type", *([TOOL_USE_ID] if paired else [])]
    rows = table.search().where(where).select(columns).limit(table.count_rows(where)).to_list()
    orphaned = [
        after["id"]
        for before, after in successive_rows(rows)
        if before["id"] in doomed and after["id"] not in doomed
    ]
    # A tool output's lead-in quotes its own call, which need not be the row before it.
    doomed_calls = {
        (row["session_id"], row[TOOL_USE_ID])
        for row in rows
        if paired and row["id"] in doomed and row["block_type"] == "tool_use" and row[TOOL_USE_ID]
    }
    orphaned += [
        row["id"]
        for row in rows
        if doomed_calls
        and row["id"] not in doomed
        and row["block_type"] == "tool_result"
        and (row["session_id"], row[TOOL_USE_ID]) in doomed_calls
    ]
    for start in range(0, len(orphaned), 500):
        batch = ", ".join(sql_quote(i) for i in orphaned[start : start + 500])
        table.update(where=f"id IN ({batch}) AND {COLUMN} != ''", values={COLUMN: ""})
    return len(orphaned)


def _prune(table: Any) -> None:
    """Drop every older version (and the files only they used); forget runs under the writer
    lock, and readers open the latest version per call."""
    import warnings

    # An optimize prunes before it folds the rows into the indexes, a step that commits a
    # version of its own (and leaves the index folders the pruned ones used): run it again until
    # one version is left; the second run has nothing to fold, so it commits nothing.
    for _ in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "removes every version except the latest": the point
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        if len(table.list_versions()) <= 1:
            return


def _not_in(column: Any, values: set[str]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.invert(pc.is_in(column, value_set=pa.array(sorted(values), pa.string())))


def _open(memory: str | None, key: str) -> tuple[Any, str, str | None]:
    """(store or None, label, remote uri): the memory rows are removed from."""
    from funes.index.store import ChunkStore, MemoryNotFound, memory_exists

    if key.startswith("hf://"):
        from funes.memory_spec import parse_remote_spec
        from funes.sync.remote import RemoteCache

        cache = RemoteCache(parse_remote_spec(key))
        store = cache.open_store() if cache.has_copy() else None
        return store, key, key
    if key == LOCAL:
        from funes.paths import local_memory_dir

        path = local_memory_dir()
    else:
        path = Path(key)
    if not memory_exists(path):
        if key != LOCAL:
            raise ForgetError(f"no memory at {path}")
        return None, str(path), None
    try:
        return ChunkStore.open(path), str(path), None
    except MemoryNotFound as error:
        raise ForgetError(str(error)) from None


def _value(kind: str, raw: str, store: Any, now: datetime | None) -> str:
    if kind == "project":
        return os.path.abspath(os.path.expanduser(raw)).rstrip("/") or "/"
    if kind == "before":
        from funes.retrieve.filters import parse_when

        try:
            return parse_when(raw, now=now or datetime.now(UTC), end_of_day=False)
        except ValueError as error:
            raise ForgetError(str(error)) from None
    return _resolve_session(raw, store)


def _resolve_session(prefix: str, store: Any) -> str:
    """A unique session id from a prefix (kept as given when no row has it)."""
    if store is None:
        return prefix
    from funes.index.store import sql_quote

    rows = store.scan(["session_id"], where=f"starts_with(session_id, {sql_quote(prefix)})")
    found = sorted(set(rows.column("session_id").to_pylist()))
    if prefix in found or not found:
        return prefix
    if len(found) > 1:
        shown = ", ".join(found[:5]) + (" …" if len(found) > 5 else "")
        raise ForgetError(f"session prefix {prefix!r} matches {len(found)} sessions: {shown}")
    return found[0]


def _descendants(store: Any, session: str) -> list[str]:
    """The sessions a session led to, to any depth: its subagents' and a Hermes compression
    chain's (s1 ← s2 ← s3), each of whose first turn names the session before as its parent.
    A later session carries its parent's words (a compression summary, a delegated task)."""
    if store is None:
        return []
    from funes.index.store import sql_quote

    found: set[str] = set()
    frontier = {session}
    while frontier:
        parents = ", ".join(sql_quote(s) for s in sorted(frontier))
        rows = store.scan(["session_id"], where=f"seq = 0 AND parent_uuid IN ({parents})")
        frontier = set(rows.column("session_id").to_pylist()) - found - {session, None}
        found |= frontier
    return sorted(found)


def _where(kind: str, value: str, subagents: list[str]) -> str:
    from funes.index.store import sql_quote

    if kind == "session":
        return "session_id IN (" + ", ".join(sql_quote(s) for s in [value, *subagents]) + ")"
    if kind == "project":
        return f"workdir = {sql_quote(value)} OR starts_with(workdir, {sql_quote(value + '/')})"
    return f"ts != '' AND ts < {sql_quote(value)}"

"""Keeping a memory's storage lean as it grows, at a cost that follows the work, not the memory.

An agent turn only appends: a new Lance fragment of a few rows, searchable at once (Lance's
full-text and vector searches scan rows no index covers yet). Everything else is maintenance,
run here when it is due rather than after every write:

- **Indexes that are missing are built**: the full-text index on `text` (also after a run was
  killed while building it), the ANN vector index once a memory is large enough for exact
  search to cost more than the index, and btrees on `id` and `session_id` that keep the
  indexer's "already stored?" lookups and the neighbour and `get` reads flat.
- **Appended rows are folded in** (compaction of the small fragments, the new rows merged into
  every index, every older version dropped) once the unindexed tail or the number of fragments
  passes a threshold. The row threshold grows with the memory (a
  share of it, with a floor and a ceiling), so a fold rewrites the memory only after a
  proportional amount of new work: the rewrite cost per new row stays bounded.

lancedb's `optimize()` is the one call that folds (without `pylance` it exposes no finer
compaction target), so a fold rewrites every fragment smaller than Lance's 1M-row target; that
is what the thresholds amortise. Every step commits atomically: a run killed at any point leaves
the previous version readable, and the next `maintain()` sees what is still due and does it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from funes.index.lead_in import COLUMN as LEAD_IN
from funes.index.lead_in import has_lead_ins

# A fold deletes every version but the one it commits, and files that killed runs left behind:
# keeping older versions would hold a second copy of the memory until the next fold (the
# version before a fold is the last append, seconds old). It runs under the writer lock, so no
# write is in flight; a reader that opened the memory before the fold and reads after it
# re-opens the newest version and retries (funes.retrieve.pipeline).
OLD_VERSION_AGE = timedelta(0)
# A fold is due once this many rows are outside the full-text index ...
FOLD_MIN_ROWS = 2_048
FOLD_SHARE = 0.03
FOLD_MAX_ROWS = 16_384
# ... or once the memory is in this many fragments (each hook drain appends one; a first index
# writes one per 4k rows, so a 340k memory starts at 83).
FOLD_MAX_FRAGMENTS = 128
# Exact vector search is cheap below this many rows; above it an ANN index pays for itself.
ANN_MIN_ROWS = 50_000
# IVF partitions: about one per this many rows. The codes are RaBitQ (one bit a dimension, 32
# bytes a row at 256 dims): at 340k rows it built in 23 s where IVF_PQ took 219 s, and with
# refine it reached recall@50 0.987 against exact search where PQ stalled at 0.94 (dayzero).
ANN_ROWS_PER_PARTITION = 4_096
# Btrees, built with the first full-text index (about a second at 340k rows).
SCALAR_INDEXED = ("id", "session_id")

Progress = Callable[[str], None]


@dataclass
class StorageHealth:
    rows: int = 0
    fragments: int = 0
    fts_indexed: bool = False
    fts_unindexed: int = 0
    vector_index: bool = False
    vector_unindexed: int = 0
    scalar_indexes: bool = False
    versions: int = 0
    disk_bytes: int = 0
    due: list[str] = field(default_factory=list)  # what maintain() would do now

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def fold_threshold(rows: int) -> int:
    return int(min(FOLD_MAX_ROWS, max(FOLD_MIN_ROWS, FOLD_SHARE * rows)))


def health(store: Any) -> StorageHealth:
    """What the memory's storage looks like now, and which maintenance is due."""
    table = store.table
    state = StorageHealth(rows=store.count())
    try:
        stats = table.stats()
        fragment_stats = stats.get("fragment_stats", {}) if isinstance(stats, dict) else {}
        state.fragments = int(fragment_stats.get("num_fragments", 0))
    except Exception:  # statistics are advisory; maintenance still works without them
        pass
    scalar: set[str] = set()
    lead_in_indexed = False
    for name, column in _index_names(table).items():
        unindexed = _unindexed(table, name)
        if column == "text":
            state.fts_indexed, state.fts_unindexed = True, unindexed
        elif column == LEAD_IN:
            lead_in_indexed = True
        elif column == "vector":
            state.vector_index, state.vector_unindexed = True, unindexed
        elif column in SCALAR_INDEXED:
            scalar.add(column)
    state.scalar_indexes = scalar == set(SCALAR_INDEXED)
    # A memory with lead-ins needs their index too: one build makes both.
    state.fts_indexed = state.fts_indexed and (lead_in_indexed or not has_lead_ins(table))
    try:
        state.versions = len(table.list_versions())
    except Exception:
        state.versions = 0
    state.disk_bytes = folder_bytes(Path(store.path) / "chunks.lance")
    state.due = _due(state)
    return state


def _due(state: StorageHealth) -> list[str]:
    due: list[str] = []
    if state.rows == 0:
        return due
    if not state.fts_indexed:
        due.append("build full-text index")
    if not state.scalar_indexes:
        due.append("build scalar indexes")
    if not state.vector_index and state.rows >= ANN_MIN_ROWS:
        due.append("build vector index")
    if state.fts_indexed and (
        max(state.fts_unindexed, state.vector_unindexed) >= fold_threshold(state.rows)
        or state.fragments >= FOLD_MAX_FRAGMENTS
    ):
        due.append("fold new rows into the indexes")
    return due


def maintain(store: Any, *, full: bool = False, progress: Progress | None = None) -> list[str]:
    """Do the maintenance that is due (with `full`, also fold in whatever is unindexed); return
    what was done, for logs and reports."""
    say = progress or (lambda _step: None)
    state = health(store)
    due = list(state.due)
    fold = "fold new rows into the indexes"
    if full and fold not in due and (state.fts_unindexed or state.vector_unindexed):
        due.append(fold)
    done: list[str] = []
    for step in due:
        if step == fold and any(d.startswith("build") for d in done):
            continue  # the indexes just built cover every row already
        say(step)
        crash_point(f"before {step}")
        if step == "build full-text index":
            _build_fulltext(store.table)
        elif step == "build scalar indexes":
            _build_scalar_indexes(store.table)
        elif step == "build vector index":
            _build_vector_index(store.table, state.rows)
        elif step == fold:
            _fold(store.table)
        done.append(step)
        crash_point(f"after {step}")
    return done


def _build_fulltext(table: Any) -> None:
    from lancedb.index import FTS

    # No positions: funes sends match queries, never phrase queries, and positions double the
    # index's size and build time.
    table.create_index("text", config=FTS(with_position=False), replace=True)
    build_lead_in_index(table)


def build_lead_in_index(table: Any) -> None:
    """The lead-ins' full-text index (funes.index.lead_in), when the memory has the column."""
    from lancedb.index import FTS

    if has_lead_ins(table):
        table.create_index(LEAD_IN, config=FTS(with_position=False), replace=True)


def _build_scalar_indexes(table: Any) -> None:
    from lancedb.index import BTree

    # `id`: the indexer's "already stored?" lookups; `session_id`: neighbours and `get`.
    for column in SCALAR_INDEXED:
        table.create_index(column, config=BTree(), replace=True)


def build_index(table: Any, column: str, rows: int) -> None:
    """Build (or build again) the index funes keeps on `column`, from the stored rows."""
    if column in ("text", LEAD_IN):
        _build_fulltext(table)
    elif column == "vector":
        _build_vector_index(table, rows)
    else:
        from lancedb.index import BTree

        table.create_index(column, config=BTree(), replace=True)


def _build_vector_index(table: Any, rows: int) -> None:
    from lancedb.index import IvfRq

    partitions = max(16, rows // ANN_ROWS_PER_PARTITION)
    table.create_index(
        "vector", config=IvfRq(distance_type="cosine", num_partitions=partitions), replace=True
    )


def _fold(table: Any) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lancedb warns that old versions go: that is the point
        table.optimize(cleanup_older_than=OLD_VERSION_AGE, delete_unverified=True)


def _index_names(table: Any) -> dict[str, str]:
    """Index name → the column it covers."""
    try:
        return {idx.name: idx.columns[0] for idx in table.list_indices() if idx.columns}
    except Exception:
        return {}


def _unindexed(table: Any, name: str) -> int:
    try:
        stats = table.index_stats(name)
    except Exception:
        return 0
    return int(getattr(stats, "num_unindexed_rows", 0) or 0) if stats else 0


def folder_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


CRASH_ENV = "FUNES_CRASH_AT"


def crash_point(name: str) -> None:
    """Tests set FUNES_CRASH_AT to a point's name to kill the process right there (as kill -9
    would: no cleanup, no flush), proving the next run repairs what is left."""
    if os.environ.get(CRASH_ENV) == name:
        os._exit(137)

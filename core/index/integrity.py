"""Does a memory read back whole, the way recall reads it? And the lossless repairs when not.

Recall opens the newest manifest, every data file and every index; so does this check:

- **indexes**: each one listed in the manifest answers a one-row query of its own kind (a
  full-text match, an equality filter on a btree, a nearest-neighbour search), which opens its
  files; a lost or truncated index fails here as it fails recall. Indexes are derived from the
  rows, so rebuilding one loses nothing.
- **data files**: every row read back (`scan_rows`), or just one column of every row
  (`columns`) where a run only needs to know each file still opens (a cut file has lost the
  footer that every read of it starts from).
- **the newest manifest**: a memory whose newest version cannot be opened falls back to the
  newest version that reads whole (`fall_back`); what only the damaged versions held comes back
  from the transcripts on the next `funes index` (their read positions are reset).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DAMAGED_VERSIONS = "_versions.damaged"


@dataclass
class UnreadableIndex:
    name: str
    column: str
    error: str


def unreadable_indexes(store: Any) -> list[UnreadableIndex]:
    """The indexes the manifest lists whose files do not answer a query."""
    from funes.lance import without_source_paths

    table = store.table
    found = []
    for index in table.list_indices():
        column = index.columns[0] if index.columns else ""
        try:
            _probe(table, str(index.index_type), column, store.dim)
        except Exception as error:
            found.append(UnreadableIndex(index.name, column, without_source_paths(_line(error))))
    return found


def _probe(table: Any, kind: str, column: str, dim: int) -> None:
    if "FTS" in kind.upper() or "INVERTED" in kind.upper():
        from lancedb.query import MatchQuery

        match = MatchQuery("funes", column)  # type: ignore[call-arg]
        table.search(match, query_type="fts").select(["id"]).limit(1).to_list()
    elif column == "vector":
        import numpy as np

        probe = np.full(dim, 1.0 / max(dim, 1) ** 0.5, dtype=np.float32)
        table.search(probe, vector_column_name="vector").distance_type("cosine").select(
            ["id"]
        ).limit(1).to_list()
    else:
        table.search().where(f"{column} = 'funes-probe'").select(["id"]).limit(1).to_list()


def rebuild_indexes(store: Any, broken: list[UnreadableIndex]) -> list[str]:
    """Build each broken index again from the rows (dropped first: its files are gone or cut);
    returns what was rebuilt. The caller holds the writer lock."""
    from funes.index.maintenance import build_index

    table = store.table
    done = []
    for index in broken:
        with contextlib.suppress(Exception):  # its files are gone or cut: drop what is listed
            table.drop_index(index.name)
        build_index(table, index.column, store.count())
        done.append(f"rebuilt index {index.name} from the stored rows")
    return done


def unreadable_data(store: Any, columns: list[str] | None = None) -> str | None:
    """Why not every row can be read back (None when all can): all columns, or `columns`."""
    from funes.lance import without_source_paths

    rows = store.count()
    read = 0
    try:
        query = store.table.search()
        if columns:
            query = query.select(columns)
        for batch in query.limit(max(rows, 1)).to_batches(8192):
            read += batch.num_rows
    except Exception as error:
        return f"a data file cannot be read ({without_source_paths(_line(error))[:160]})"
    if read != rows:
        return f"{read} of {rows} rows could be read"
    return None


def _line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# -- the newest manifest ----------------------------------------------------------------------


def manifests(memory: Path) -> list[Path]:
    """The table's version manifests, newest first."""
    from funes.index.store import TABLE

    folder = memory / f"{TABLE}.lance" / "_versions"
    found = list(folder.glob("*.manifest")) if folder.is_dir() else []
    return sorted(found, key=_version_of, reverse=True)


def _version_of(manifest: Path) -> int:
    # Lance names versions either plainly (`3.manifest`) or as u64::MAX - version, so that the
    # newest sorts first by name.
    number = int(manifest.stem) if manifest.stem.isdigit() else 0
    return (1 << 64) - 1 - number if number >= 1 << 63 else number


def fall_back(memory: Path) -> int | None:
    """Move the newest manifests that cannot be opened aside (into `_versions.damaged/`) until
    the memory opens and reads whole; return how many were moved, or None (and move nothing
    back out of place) when no kept version reads."""
    from funes.index.store import TABLE, ChunkStore

    table = memory / f"{TABLE}.lance"
    aside = table / DAMAGED_VERSIONS
    moved: list[tuple[Path, Path]] = []
    for manifest in manifests(memory)[:-1]:  # the oldest is never moved: it is the last hope
        aside.mkdir(exist_ok=True)
        target = aside / manifest.name
        os.replace(manifest, target)
        moved.append((target, manifest))
        (table / "_versions" / "latest_version_hint.json").unlink(missing_ok=True)
        try:
            store = ChunkStore.open(memory)
            if unreadable_data(store, ["id"]) is None:
                return len(moved)
        except Exception:
            continue
    for target, manifest in reversed(moved):  # nothing reads: leave it as it was
        os.replace(target, manifest)
    return None


def opens(memory: Path) -> str | None:
    """Why the memory's newest version cannot be opened (None when it opens)."""
    from funes.index.store import ChunkStore
    from funes.lance import without_source_paths

    try:
        ChunkStore.open(memory).count()
    except Exception as error:
        return without_source_paths(_line(error))
    return None


# -- a lost data file -------------------------------------------------------------------------

# Fragment ids grow with every append and compaction; past this many ids without finding every
# fragment the table lists, the salvage stops looking.
MAX_FRAGMENT_IDS = 1 << 16
# Rows asked of one fragment at a time (Lance addresses a row as fragment id << 32 | offset).
TAKE_ROWS = 8192
EMPTY_WINDOWS = 8


@dataclass
class Salvage:
    kept: int  # rows that read back, now the memory's rows
    lost_files: int  # fragments whose data file is gone or cannot be read
    aside: Path  # where the damaged table was moved (nothing is deleted)


def salvage(memory: Path) -> Salvage:
    """Copy every row that still reads into a new table, fragment by fragment (a fragment whose
    data file is lost costs its own rows, never the others), and put it in place of the damaged
    one, which is moved aside. The caller holds the writer lock, then re-reads the transcripts
    to bring back what the lost files held."""
    import shutil

    from funes.index.store import TABLE, ChunkStore
    from funes.lance import import_lancedb

    table = ChunkStore.open(memory).table
    fragments = int(table.stats()["fragment_stats"]["num_fragments"])
    staging = memory / f".salvage-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    copy = import_lancedb().connect(str(staging)).create_table(TABLE, schema=table.schema)
    seen = lost = kept = 0
    fragment = 0
    while seen < fragments and fragment < MAX_FRAGMENT_IDS:
        try:
            rows = _copy_fragment(table, fragment, copy)
        except Exception:  # its data file is gone or cut: its rows cannot be read
            seen, lost = seen + 1, lost + 1
        else:
            seen += rows > 0
            kept += rows
        fragment += 1
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    # Beside the memory, not in it: what is in the memory's folder is pushed and copied.
    aside = memory.parent / f"{memory.name}.damaged-{stamp}" / f"{TABLE}.lance"
    aside.parent.mkdir(parents=True, exist_ok=True)
    os.rename(memory / f"{TABLE}.lance", aside)
    os.rename(staging / f"{TABLE}.lance", memory / f"{TABLE}.lance")
    shutil.rmtree(staging, ignore_errors=True)
    return Salvage(kept, lost, aside)


def _copy_fragment(table: Any, fragment: int, copy: Any) -> int:
    """Append the rows of fragment `fragment` to `copy`; how many (0: no such fragment). Raises
    when its data cannot be read. Rows are addressed by offset, and a forget leaves gaps of
    deleted offsets: a fragment ends after EMPTY_WINDOWS windows in a row with no row."""
    rows = empty = offset = 0
    while empty < EMPTY_WINDOWS:
        start = (fragment << 32) + offset
        batch = table.take_row_ids(list(range(start, start + TAKE_ROWS))).to_arrow()
        offset += TAKE_ROWS
        if batch.num_rows == 0:
            if rows == 0:  # no such fragment (or its first window all forgotten: re-indexed)
                return 0
            empty += 1
            continue
        empty = 0
        copy.add(batch)
        rows += batch.num_rows
    return rows

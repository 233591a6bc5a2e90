"""A memory's storage health (indexes, versions, fragments, disk) and its safe upkeep, for
`funes doctor`.

`funes.index.maintenance` owns storage upkeep (what is due, and doing it); this module reads its
`health()` into one `StorageView` and, for a build without that module, asks Lance directly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

# Without funes.index.maintenance: versions older than this are what a cleanup drops.
FALLBACK_VERSION_AGE = timedelta(days=7)
# More versions than this slow every open of the memory (each is a manifest on disk).
VERSIONS_WARN = 100


@dataclass(slots=True)
class StorageView:
    rows: int
    fts_indexed: bool  # the full-text index on `text` exists
    fts_unindexed: int  # rows outside it (still found: Lance scans them, at a cost)
    vector_index: bool  # an ANN index on `vector` (exact search needs none while small)
    versions: int  # dataset versions kept on disk
    fragments: int
    disk_bytes: int
    due: list[str] = field(default_factory=list)  # upkeep due now, in maintenance's words


def version_age() -> timedelta:
    try:
        from funes.index.maintenance import OLD_VERSION_AGE
    except ImportError:
        return FALLBACK_VERSION_AGE
    return OLD_VERSION_AGE


def storage_view(store: Any) -> StorageView:
    try:
        from funes.index.maintenance import health
    except ImportError:
        return _lance_view(store)
    state = health(store)
    return StorageView(
        rows=int(getattr(state, "rows", 0) or store.count()),
        fts_indexed=bool(state.fts_indexed),
        fts_unindexed=int(
            getattr(state, "fts_unindexed", getattr(state, "unindexed_rows", 0)) or 0
        ),
        vector_index=bool(state.vector_index),
        versions=int(state.versions),
        fragments=int(state.fragments),
        disk_bytes=int(state.disk_bytes),
        due=list(getattr(state, "due", []) or []),
    )


def maintain(store: Any) -> list[str]:
    """Do the upkeep that is due, then drop old versions if too many are kept; return what was
    done, one line each. The caller holds the writer lock."""
    try:
        from funes.index.maintenance import maintain as maintained
    except ImportError:
        done = _lance_maintain(store)
    else:
        done = list(maintained(store, full=True))
    if len(store.table.list_versions()) > VERSIONS_WARN and old_versions(store):
        before = len(store.table.list_versions())
        # lancedb's one native cleanup (its `cleanup_old_versions` needs pylance).
        store.table.optimize(cleanup_older_than=version_age())
        done.append(f"dropped {before - len(store.table.list_versions())} old version(s)")
    return done


def _lance_view(store: Any) -> StorageView:
    table = store.table
    fts = vector = False
    unindexed = 0
    try:
        indices = list(table.list_indices())
    except Exception:  # an unreadable index listing reads as "no index": the repair rebuilds it
        indices = []
    for index in indices:
        if "text" in index.columns:
            fts = True
            try:
                stats = table.index_stats(index.name)
                unindexed = int(getattr(stats, "num_unindexed_rows", 0) or 0)
            except Exception:
                unindexed = 0
        elif "vector" in index.columns:
            vector = True
    rows = store.count()
    return StorageView(
        rows=rows,
        fts_indexed=fts,
        fts_unindexed=unindexed if fts else rows,
        vector_index=vector,
        versions=len(table.list_versions()),
        fragments=int(table.stats()["fragment_stats"]["num_fragments"]),
        disk_bytes=folder_bytes(Path(store.path)),
        due=["build full-text index"] if rows and not fts else [],
    )


def _lance_maintain(store: Any) -> list[str]:
    done = []
    if not store.has_fts_index() and store.count():
        store.ensure_indexes()
        done.append("build full-text index")
    else:
        store.table.optimize(cleanup_older_than=FALLBACK_VERSION_AGE)
        done.append("fold new rows into the indexes")
    return done


def old_versions(store: Any) -> int:
    """Versions older than `version_age()` (what a cleanup would drop; the newest stays)."""
    versions = store.table.list_versions()
    if len(versions) <= 1:
        return 0
    newest = max(v["version"] for v in versions)
    now = datetime.now()  # Lance stamps versions in local time, without a zone
    age = version_age()
    old = 0
    for version in versions:
        stamp = version["timestamp"]
        if stamp.tzinfo is not None:
            stamp = stamp.astimezone().replace(tzinfo=None)
        if version["version"] != newest and now - stamp > age:
            old += 1
    return old


def folder_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue  # removed by a concurrent cleanup
    return total

"""Storage upkeep as `funes doctor --fix` applies it: what `funes.index.maintenance` finds due,
then old versions dropped when too many have piled up (every version is a manifest read when
the memory is opened)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

# More versions than this slow every open of the memory.
VERSIONS_WARN = 100


def maintain(store: Any) -> list[str]:
    """Do the upkeep that is due, then drop old versions if too many are kept; return what was
    done, one line each. The caller holds the writer lock."""
    from funes.index.maintenance import OLD_VERSION_AGE
    from funes.index.maintenance import maintain as maintained

    done = list(maintained(store, full=True))
    before = len(store.table.list_versions())
    if before > VERSIONS_WARN and old_versions(store):
        # lancedb's one native cleanup (its `cleanup_old_versions` needs pylance).
        store.table.optimize(cleanup_older_than=OLD_VERSION_AGE)
        done.append(f"dropped {before - len(store.table.list_versions())} old version(s)")
    return done


def old_versions(store: Any) -> int:
    """Versions a cleanup would drop: older than maintenance's OLD_VERSION_AGE, newest kept."""
    from funes.index.maintenance import OLD_VERSION_AGE

    versions = store.table.list_versions()
    if len(versions) <= 1:
        return 0
    newest = max(v["version"] for v in versions)
    now = datetime.now()  # Lance stamps versions in local time, without a zone
    old = 0
    for version in versions:
        stamp = version["timestamp"]
        if stamp.tzinfo is not None:
            stamp = stamp.astimezone().replace(tzinfo=None)
        if version["version"] != newest and now - stamp >= OLD_VERSION_AGE:
            old += 1
    return old

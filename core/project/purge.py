"""`funes push --purge-history`: make forgotten rows really gone from a Hub memory.

Readers already drop what a tombstone names, but the shards (and every older commit) still hold
those rows. A purge:
1. rewrites the memory's shards as one new shard holding only the rows no tombstone names, in
   one parent-guarded commit that deletes the old shards (tombstones, manifest and card stay);
2. squashes the history of `main` into that one commit (`super_squash_history`), so no older
   revision references the old shards;
3. permanently deletes the LFS objects no file of the new head points to, which a squash alone
   leaves stored.
Every reader's copy then finds its shards gone and rebuilds itself from the new one.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_ATTEMPTS = 10

# How a push writes a shard: (path_in_repo, rows, folder) -> (its path in the repo, its file).
# Passed in by the push, whose writer it is, so a purge depends on nothing above it.
ShardWriter = Callable[[Callable[[str], str], Any, Path], tuple[str, Path]]


@dataclass
class PurgeReport:
    commit: str = ""
    rows_kept: int = 0
    shards_removed: int = 0
    lfs_deleted: int = 0


def purge(
    remote: Any, cache: Any, say: Callable[[str], None], write_shard: ShardWriter
) -> PurgeReport:
    from funes.project.published import honour_tombstones
    from funes.sync.hub import HubError, PushConflict
    from funes.sync.remote import SHARD_FOLDER, sync_cache

    spec = cache.spec
    report = PurgeReport()
    for attempt in range(1, MAX_ATTEMPTS + 1):
        head = remote.head()
        sync_cache(cache, remote, head)
        with cache.locked():
            honour_tombstones(cache, remote, head)
        shards = [
            f.path for f in remote.list_files(SHARD_FOLDER, head) if f.path.endswith(".parquet")
        ]
        with tempfile.TemporaryDirectory() as tmp:
            files: dict[str, Path | bytes] = {}
            if cache.has_copy():
                store = cache.open_store()
                rows = store.scan(list(store.table.schema.names))
                report.rows_kept = rows.num_rows
                if rows.num_rows:
                    shard_path, shard_file = write_shard(spec.path_in_repo, rows, Path(tmp))
                    files[shard_path] = shard_file
            # A rewrite holding the same ids as an old shard gets its name: replaced, not deleted.
            doomed = tuple(path for path in shards if path not in files)
            say(f"rewriting {len(shards)} shard(s) as one with {report.rows_kept} row(s)")
            try:
                report.commit = remote.commit(
                    files, "funes push: purge forgotten rows", head, deletions=doomed
                )
            except PushConflict:
                time.sleep(min(0.2 * attempt, 2.0))
                continue
        report.shards_removed = len(shards)
        break
    else:
        raise HubError(f"{spec.uri} kept changing; gave up purging after {MAX_ATTEMPTS} attempts")
    say("squashing the dataset's history")
    remote.squash_history("funes push --purge-history: forgotten rows removed")
    head = remote.head()
    say("deleting the stored files no revision uses any more")
    report.lfs_deleted = remote.delete_unreferenced_lfs(head)
    report.commit = head
    with cache.locked():
        cache.reset()  # rebuilt from the new shard at the next read
    sync_cache(cache, remote, head)
    return report

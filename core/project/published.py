"""Tombstones on a Hub memory: what a push publishes, and what every reader drops.

A push adds `<prefix>/forgotten/<time>-<hash>.json` ({"chunk_ids": [...]}) for the rows this
machine forgot that the remote still holds, in the same parent-guarded commit as any new shard.
Files are only ever added, like shards, so concurrent pushes never conflict over them.

A reader's local copy (`$FUNES_HOME/remotes/<name>/`) drops every row a published tombstone
names each time it moves to a new head, and also the rows this machine's own tombstones name
(so a forget shows at once, before any push). `forgotten.json` beside the copy remembers the
tombstone files read, the ids they name and the ids this machine still has to publish.

Dropping rows from the copies is what readers see; the shards on the Hub still hold the rows
until `funes push --purge-history` rewrites them (see `funes.project.purge`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from funes.index.tombstones import LOCAL, forgotten_ids

FORGOTTEN_FOLDER = "forgotten"


@dataclass
class PublishedState:
    files: list[str] = field(default_factory=list)  # tombstone files already read
    published: set[str] = field(default_factory=set)  # ids the remote's tombstones name
    unpublished: set[str] = field(default_factory=set)  # ids forgotten here, still on the remote


def _path(cache: Any) -> Path:
    return Path(cache.dir) / "forgotten.json"


def read_state(cache: Any) -> PublishedState:
    try:
        raw = json.loads(_path(cache).read_text())
        return PublishedState(
            files=list(raw["files"]),
            published=set(raw["published"]),
            unpublished=set(raw["unpublished"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return PublishedState()


def write_state(cache: Any, state: PublishedState) -> None:
    path = _path(cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "files": sorted(state.files),
        "published": sorted(state.published),
        "unpublished": sorted(state.unpublished),
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, path)


def honour_tombstones(cache: Any, remote: Any, head: str) -> PublishedState:
    """Read the tombstones published at `head` and drop every forgotten row from the copy.
    The caller holds the cache's lock."""
    state = read_state(cache)
    listed = [f.path for f in remote.list_files(FORGOTTEN_FOLDER, head) if f.path.endswith(".json")]
    new = [path for path in listed if path not in state.files]
    if new:
        with tempfile.TemporaryDirectory(dir=cache.dir) as tmp:
            for path in new:
                text = remote.read_text(path, head, Path(tmp)) or "{}"
                try:
                    ids = json.loads(text).get("chunk_ids", [])
                except ValueError:
                    ids = []  # not ours to trust, not ours to fail on
                state.published.update(str(i) for i in ids)
                state.files.append(path)
    mine = forgotten_ids([LOCAL, cache.spec.uri])
    if cache.has_copy():
        store = cache.open_store()
        doomed = state.published | mine
        present = store.known_ids(sorted(doomed)) if doomed else set()
        state.unpublished |= (present & mine) - state.published
        if present:
            # A plain delete, not a purge: other processes may be reading this copy at an older
            # version, and the bytes are on the Hub anyway until `--purge-history` (after
            # which every copy is rebuilt from the rewritten shards).
            store.delete_ids(sorted(present))
    state.unpublished -= state.published
    write_state(cache, state)
    return state


def tombstone_file(path_in_repo: Any, ids: set[str]) -> tuple[str, bytes]:
    """(path in the repo, content) of a new tombstone file naming `ids`."""
    ordered = sorted(ids)
    digest = hashlib.sha256("\n".join(ordered).encode()).hexdigest()[:16]
    name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{digest}.json"
    content = json.dumps({"version": 1, "chunk_ids": ordered}, indent=0).encode()
    return path_in_repo(f"{FORGOTTEN_FOLDER}/{name}"), content


def record_published(cache: Any, path: str, ids: set[str]) -> None:
    state = read_state(cache)
    state.files.append(path)
    state.published |= ids
    state.unpublished -= ids
    write_state(cache, state)

"""What a remote memory is on this machine: a local Lance copy of the shards at one commit.

`$FUNES_HOME/remotes/<sanitized-uri>/` holds `memory/` (a ChunkStore) and `state.json` (the
commit the copy reflects, the shards applied, when the remote head was last checked). Opening a
remote checks its head at most once per `FUNES_REMOTE_CHECK_S` seconds (default 60): inside that
window, or when the Hub is unreachable, the copy is used as is and no request is made. A new head
costs one tree listing plus a download of only the shards the copy lacks (shards are immutable).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from funes.index.store import MemoryUnavailable, OpenedMemory
from funes.memory_spec import RemoteSpec, parse_remote_spec
from funes.paths import funes_home
from funes.sync.hub import HubOffline, HubRemote

SHARD_FOLDER = "data"
DEFAULT_CHECK_S = 60.0


def check_interval_s() -> float:
    raw = os.environ.get("FUNES_REMOTE_CHECK_S", "").strip()
    try:
        return float(raw) if raw else DEFAULT_CHECK_S
    except ValueError:
        return DEFAULT_CHECK_S


class RemoteUnreachable(MemoryUnavailable):
    """The Hub cannot be reached and no copy of the remote memory is cached here."""


class RemoteEmpty(Exception):
    """The dataset exists but holds no memory yet."""


@dataclass
class CacheState:
    commit: str = ""
    shards: list[str] = field(default_factory=list)
    checked_at: float = 0.0


class RemoteCache:
    def __init__(self, spec: RemoteSpec) -> None:
        self.spec = spec
        self.dir = funes_home() / "remotes" / spec.cache_name
        self.memory_dir = self.dir / "memory"
        self.state_path = self.dir / "state.json"

    def read_state(self) -> CacheState | None:
        try:
            raw = json.loads(self.state_path.read_text())
            return CacheState(raw["commit"], list(raw["shards"]), float(raw["checked_at"]))
        except (OSError, ValueError, KeyError):
            return None

    def write_state(self, state: CacheState) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state.__dict__, indent=1))
        os.replace(tmp, self.state_path)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One process at a time updates a cache; readers of the Lance copy need no lock."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def open_store(self) -> Any:
        from funes.index.store import ChunkStore

        return ChunkStore.open(self.memory_dir)

    def has_copy(self) -> bool:
        from funes.index.store import memory_exists

        return memory_exists(self.memory_dir) and self.read_state() is not None

    def apply_shards(self, files: list[Path]) -> None:
        """Fold shard files into the copy; idempotent per chunk id (a half-applied update or a
        chunk pushed twice never duplicates a row)."""
        from funes.lance import import_lancedb

        lancedb = import_lancedb()
        import pyarrow.parquet as pq

        from funes.index.store import TABLE, ChunkStore, memory_exists

        for file in files:
            shard = pq.read_table(file)
            if shard.num_rows == 0:
                continue
            if not memory_exists(self.memory_dir):
                self.memory_dir.mkdir(parents=True, exist_ok=True)
                db = lancedb.connect(str(self.memory_dir))
                # Several fragments, as a locally built memory has: Lance scans fragments in
                # parallel, and one 100k-row fragment made flat search 1.6x slower on 2 cores.
                table = db.create_table(TABLE, data=shard.slice(0, COPY_FRAGMENT_ROWS))
                for start in range(COPY_FRAGMENT_ROWS, shard.num_rows, COPY_FRAGMENT_ROWS):
                    table.add(shard.slice(start, COPY_FRAGMENT_ROWS))
                continue
            store = ChunkStore.open(self.memory_dir)
            if store.table.schema.metadata != shard.schema.metadata:
                raise RemoteModelMixed(f"{self.spec.uri} mixes shards from different models")
            store.table.merge_insert("id").when_not_matched_insert_all().execute(shard)

    def reset(self) -> None:
        shutil.rmtree(self.memory_dir, ignore_errors=True)
        self.state_path.unlink(missing_ok=True)


COPY_FRAGMENT_ROWS = 8192


class RemoteModelMixed(Exception):
    pass


def sync_cache(cache: RemoteCache, remote: HubRemote, head: str) -> None:
    """Bring the copy to `head`: download only the shards it lacks."""
    with cache.locked():
        state = cache.read_state() or CacheState()
        if state.commit == head and cache.has_copy():
            state.checked_at = time.time()
            cache.write_state(state)
            return
        listed = sorted(
            f.path for f in remote.list_files(SHARD_FOLDER, head) if f.path.endswith(".parquet")
        )
        if not set(state.shards) <= set(listed) or not cache.has_copy():
            # Shards are append-only; one vanished means the remote was rewritten: start over.
            cache.reset()
            state = CacheState()
        new = [path for path in listed if path not in state.shards]
        with tempfile.TemporaryDirectory(dir=cache.dir) as tmp:
            files = [remote.download(path, head, Path(tmp)) for path in new]
            cache.apply_shards(files)
        if new:
            cache.open_store().ensure_indexes()
        cache.write_state(CacheState(commit=head, shards=listed, checked_at=time.time()))
        # Rows `funes forget` took back (published by any push, or forgotten here) are dropped.
        from funes.project.published import honour_tombstones

        honour_tombstones(cache, remote, head)


def record_push(cache: RemoteCache, parent: str, commit: str, shard_path: str, shard: Path) -> None:
    """After our own commit on top of `parent`, the copy becomes `commit` without a download."""
    with cache.locked():
        state = cache.read_state()
        if state is None or state.commit != parent:
            return
        cache.apply_shards([shard])
        cache.open_store().ensure_indexes()
        cache.write_state(CacheState(commit, [*state.shards, shard_path], time.time()))


# Per-process: the store of each remote copy already opened, keyed by (cache folder, commit).
_opened: dict[tuple[str, str], Any] = {}


def open_remote_memory(spec: str) -> OpenedMemory:
    """Open a remote memory for reading. With the Hub unreachable the copy cached here answers
    (a note says so); with no copy either, RemoteUnreachable: never another memory instead."""
    from funes.index.store import MemoryNotFound

    remote_spec = parse_remote_spec(spec)
    uri = remote_spec.uri
    cache = RemoteCache(remote_spec)
    state = cache.read_state()
    notes: list[str] = []
    fresh = state is not None and time.time() - state.checked_at < check_interval_s()
    if not (fresh and cache.has_copy()):
        remote = HubRemote(remote_spec)
        try:
            head = remote.head()
        except HubOffline as error:
            # Said either way: the other memories answered meanwhile (recall reads them at once).
            if cache.has_copy():
                notes.append(
                    f"remote {uri} unreachable ({error}) — recalling from the copy cached here"
                )
            else:
                raise RemoteUnreachable(
                    f"memory {spec} is unreachable ({error}) and has no copy on this machine: "
                    f"go online once (any read with --memory {spec} caches it), or pass a local "
                    "folder as --memory"
                ) from None
        else:
            sync_cache(cache, remote, head)
        state = cache.read_state()
    if state is None or not cache.has_copy():
        raise MemoryNotFound(
            f"{uri} exists on the Hub but holds no memory yet — run `funes push {spec}`"
        )
    key = (str(cache.dir), state.commit)
    store = _opened.get(key)
    if store is None:
        store = _opened[key] = cache.open_store()
    return OpenedMemory(store=store, label=uri, notes=notes, remote=uri)

"""For each Hub memory this machine publishes to: what is pushed and what is still local.

Read from the commit-pinned copy `funes.sync.remote` keeps of each remote (no network): a local
chunk missing from the copy is not pushed yet, or was held back by the secret gate.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True)
class RemoteView:
    spec: str  # as bound (ORG/REPO or hf://…)
    uri: str
    bound_by: list[str] = field(default_factory=list)  # agents bound to it ($FUNES_MEMORY too)
    read_by: list[str] = field(default_factory=list)  # agents that only read it (--read-only)
    cached: bool = False  # a local copy of the remote exists
    commit: str = ""  # the commit the copy reflects
    remote_chunks: int = 0
    local_chunks: int = 0
    local_only: int = 0  # local chunks the copy lacks: not pushed yet, or held back by the gate
    checked_at: str | None = None  # when the remote's head was last checked
    last_push: str | None = None  # when a push was last started from this machine

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _iso(epoch: float | None) -> str | None:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch)) if epoch else None


def bound_remotes() -> dict[str, list[str]]:
    """Every Hub memory something here publishes to → who binds it."""
    return _remotes()[0]


def _remotes() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(Hub memory → the agents bound to it, Hub memory → the agents that only read it)."""
    from funes.integrations.agents import wired_agents
    from funes.memory_spec import is_remote_spec

    bound: dict[str, list[str]] = {}
    read: dict[str, list[str]] = {}
    for agent, record in wired_agents().items():
        spec = record.get("memory")
        if isinstance(spec, str) and is_remote_spec(spec):
            bound.setdefault(spec, []).append(agent)
        for reads in record.get("reads") or []:
            if isinstance(reads, str) and is_remote_spec(reads):
                read.setdefault(reads, []).append(agent)
    env = os.environ.get("FUNES_MEMORY", "").strip()
    if env and is_remote_spec(env):
        bound.setdefault(env, []).append("$FUNES_MEMORY")
    return bound, read


def sync_views(local_ids: set[str] | None = None) -> list[RemoteView]:
    """One view per Hub memory something here publishes to or reads; `local_ids` (the local
    memory's chunk ids) is read when not given."""
    from funes.memory_spec import parse_remote_spec
    from funes.sync.push import push_stamp
    from funes.sync.remote import RemoteCache

    views: list[RemoteView] = []
    bound, read = _remotes()
    if bound and local_ids is None:
        local_ids = _local_ids()
    for spec in sorted(set(bound) | set(read)):
        agents = bound.get(spec, [])
        try:
            remote_spec = parse_remote_spec(spec)
        except ValueError:
            continue
        cache = RemoteCache(remote_spec)
        view = RemoteView(
            spec=spec, uri=remote_spec.uri, bound_by=agents, read_by=read.get(spec, [])
        )
        view.local_chunks = len(local_ids or ())
        state = cache.read_state()
        if state is not None:
            view.commit, view.checked_at = state.commit, _iso(state.checked_at)
        # Stamped by each push (funes.sync.push) and each background push the hook worker starts.
        with contextlib.suppress(OSError):
            view.last_push = _iso(push_stamp(remote_spec).stat().st_mtime)
        if not agents:  # only read here: nothing of the local memory goes there
            view.local_chunks = 0
        if cache.has_copy():
            view.cached = True
            remote_ids = set(cache.open_store().scan(["id"]).column("id").to_pylist())
            view.remote_chunks = len(remote_ids)
            view.local_only = len((local_ids or set()) - remote_ids) if agents else 0
        else:
            view.local_only = view.local_chunks
        views.append(view)
    return views


def _local_ids() -> set[str]:
    from funes.index.store import ChunkStore, MemoryNotFound

    try:
        store = ChunkStore.open()
    except MemoryNotFound:
        return set()
    return set(store.scan(["id"]).column("id").to_pylist())

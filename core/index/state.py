"""Incremental state: how far each unit (transcript file or database) has been read.

Kept in `$FUNES_HOME/state.json`, rewritten atomically. The Lance table is the source of truth
for what is stored; this file only saves work. Losing it costs a re-read, never a duplicate,
because chunk ids are derived from coordinates and checked before every append.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from funes.paths import funes_home

STATE_VERSION = 1
# A `.state.*.tmp` older than this is a leftover of a save that was killed before its rename (a
# live save takes milliseconds), and is removed by the next save.
STALE_TMP_S = 60.0


def state_path(memory: Path | None = None) -> Path:
    """The default memory's state is `$FUNES_HOME/state.json`; another local memory (a folder an
    agent is bound to) keeps its own beside its table, so each memory reads every transcript."""
    from funes.paths import local_memory_dir

    if memory is None or Path(memory).absolute() == local_memory_dir().absolute():
        return funes_home() / "state.json"
    return Path(memory) / "funes-state.json"


def unit_signature(unit: Path) -> str:
    """Size and mtime of the unit (and of a SQLite WAL beside it): unchanged → nothing to read."""
    parts = []
    for candidate in (unit, unit.with_name(unit.name + "-wal")):
        try:
            st = candidate.stat()
        except OSError:
            continue
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


@dataclass
class UnitState:
    harness: str
    signature: str = ""  # signature when last read to the end
    resume: dict[str, Any] = field(default_factory=dict)
    indexed_at: str = ""
    sessions: list[str] = field(default_factory=list)


@dataclass
class IndexState:
    units: dict[str, UnitState] = field(default_factory=dict)
    # Units seen by the last sweep that still have unread content (the backlog).
    pending: list[str] = field(default_factory=list)
    repos: dict[str, str] = field(default_factory=dict)  # workdir → "owner/name ..." cache
    last_indexed: str = ""
    path: Path | None = None  # where it is saved (None: the default memory's state)

    @classmethod
    def load(cls, path: Path | None = None) -> IndexState:
        try:
            raw = json.loads((path or state_path()).read_text())
        except (OSError, ValueError):
            return cls(path=path)
        if not isinstance(raw, dict) or raw.get("version") != STATE_VERSION:
            return cls(path=path)
        units = {
            key: UnitState(**value)
            for key, value in raw.get("units", {}).items()
            if isinstance(value, dict)
        }
        return cls(
            units=units,
            pending=list(raw.get("pending", [])),
            repos=dict(raw.get("repos", {})),
            last_indexed=str(raw.get("last_indexed", "")),
            path=path,
        )

    def save(self) -> None:
        payload = {
            "version": STATE_VERSION,
            "last_indexed": self.last_indexed,
            "pending": self.pending,
            "repos": self.repos,
            "units": {key: vars(value) for key, value in self.units.items()},
        }
        path = self.path or state_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_tmp(path.parent)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".state.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as handle:
                json.dump(payload, handle)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def remove_stale_tmp(folder: Path, older_than_s: float = STALE_TMP_S) -> int:
    """Delete `.state.*.tmp` files a killed save left in `folder`; return how many."""
    import time

    removed = 0
    cutoff = time.time() - older_than_s
    for leftover in folder.glob(".state.*.tmp"):
        try:
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
                removed += 1
        except OSError:  # another save finished (or cleaned it) meanwhile
            continue
    return removed

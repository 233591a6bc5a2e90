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


def state_path() -> Path:
    return funes_home() / "state.json"


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

    @classmethod
    def load(cls) -> IndexState:
        try:
            raw = json.loads(state_path().read_text())
        except (OSError, ValueError):
            return cls()
        if not isinstance(raw, dict) or raw.get("version") != STATE_VERSION:
            return cls()
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
        )

    def save(self) -> None:
        payload = {
            "version": STATE_VERSION,
            "last_indexed": self.last_indexed,
            "pending": self.pending,
            "repos": self.repos,
            "units": {key: vars(value) for key, value in self.units.items()},
        }
        path = state_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".state.", suffix=".tmp")
        with os.fdopen(fd, "w") as handle:
            json.dump(payload, handle)
        os.replace(tmp, path)

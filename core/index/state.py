"""Incremental state: how far each unit (transcript file or database) has been read.

Kept in `$FUNES_HOME/state.json`, rewritten atomically. The Lance table is the source of truth
for what is stored; this file only saves work. Losing it costs a re-read, never a duplicate,
because chunk ids are derived from coordinates and checked before every append.

Each unit's resume point (offsets, the record ids and open turns a reader carries over: most of
the state's bytes, 17 of 21 MB for a 10k-file history) lives in a file of its own beside it
(`state.resume/`), read only when that unit is read again and written only when it moved: a
hook's turn rewrites one small file and a compact `state.json`, not the whole history's state.
A resume point carries a transcript's open turn in full; it is written cleaned as the rows are
(`stored_resume`: private spans out, credentials redacted), so no file holds what the memory
does not.
"""

from __future__ import annotations

import hashlib
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
# Per transcript, the state keeps at most this many "skipped" warnings for `funes doctor`.
MAX_SKIPPED_SHOWN = 5


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
    # None until asked for (IndexState.resume_of reads it from its own file).
    resume: dict[str, Any] | None = None
    indexed_at: str = ""
    sessions: list[str] = field(default_factory=list)


def _resume_dir(path: Path) -> Path:
    return path.with_name(path.stem + ".resume")


def _resume_file(path: Path, key: str) -> Path:
    return _resume_dir(path) / (
        hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest() + ".json"
    )


@dataclass
class IndexState:
    units: dict[str, UnitState] = field(default_factory=dict)
    # Units seen by the last sweep that still have unread content (the backlog).
    pending: list[str] = field(default_factory=list)
    repos: dict[str, str] = field(default_factory=dict)  # workdir → "owner/name ..." cache
    last_indexed: str = ""
    # Transcripts with lines (or the whole file) that could not be read, as their last read
    # found them: unit key → warnings ("path:line: why; skipped"). `funes doctor` shows them.
    skipped: dict[str, list[str]] = field(default_factory=dict)
    path: Path | None = None  # where it is saved (None: the default memory's state)
    # Units whose resume point changed since loading: only their files are written.
    dirty: set[str] = field(default_factory=set)

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
        # Once a run, not on every save: the folder holds a file per transcript.
        resume_dir = _resume_dir(path or state_path())
        if resume_dir.is_dir():
            remove_stale_tmp(resume_dir)
        # A state written before resume points had files of their own carries them inline:
        # they move out on the next save.
        inline = {key for key, unit in units.items() if unit.resume}
        return cls(
            units=units,
            pending=list(raw.get("pending", [])),
            repos=dict(raw.get("repos", {})),
            last_indexed=str(raw.get("last_indexed", "")),
            skipped={
                str(key): [str(w) for w in value][:MAX_SKIPPED_SHOWN]
                for key, value in dict(raw.get("skipped", {})).items()
                if isinstance(value, list)
            },
            path=path,
            dirty=inline,
        )

    def resume_of(self, key: str) -> dict[str, Any]:
        """Where reading `key` resumes ({} when it was never read or the file is gone)."""
        unit = self.units.get(key)
        if unit is None:
            return {}
        if unit.resume is None:
            try:
                unit.resume = json.loads(_resume_file(self._path(), key).read_text())
            except (OSError, ValueError):
                unit.resume = {}  # lost: the unit is re-read, its known chunks skipped
        return unit.resume or {}

    def note_skipped(self, key: str, warnings: list[str]) -> None:
        """Remember what a read of `key` could not read (the newest few, earlier reads' too)."""
        if warnings:
            kept = [*self.skipped.get(key, []), *warnings]
            self.skipped[key] = list(dict.fromkeys(kept))[-MAX_SKIPPED_SHOWN:]

    def forget_resume_points(self, sessions: set[str]) -> int:
        """Delete the resume points (which hold a transcript's open turn in full text) of every
        unit that held one of `sessions`; return how many. Such a unit is read again from its
        start when it next changes."""
        dropped = 0
        for key, unit in self.units.items():
            if sessions.isdisjoint(unit.sessions):
                continue
            _resume_file(self._path(), key).unlink(missing_ok=True)
            unit.resume = None
            self.dirty.discard(key)
            dropped += 1
        return dropped

    def read_everything_again(self) -> None:
        """Forget how far each unit was read: the next run reads every transcript from its start
        (what is still stored is skipped by chunk id). For a memory that lost rows."""
        for key, unit in self.units.items():
            unit.signature = ""
            unit.resume = None
            _resume_file(self._path(), key).unlink(missing_ok=True)
        self.dirty.clear()

    def record(self, key: str, unit: UnitState) -> None:
        self.units[key] = unit
        self.dirty.add(key)

    def _path(self) -> Path:
        return self.path or state_path()

    def save(self) -> None:
        path = self._path()
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_tmp(path.parent)
        # Resume points first: a kill before state.json is replaced leaves a newer resume point
        # beside an older signature, which re-reads the unit from where it really got to.
        if self.dirty:
            _resume_dir(path).mkdir(exist_ok=True)
        for key in sorted(self.dirty):
            unit = self.units.get(key)
            if unit is not None and unit.resume is not None:
                _write_atomic(_resume_file(path, key), stored_resume(unit.resume))
                # Read back from its file if the unit is read again: a first index of a long
                # history would otherwise hold every unit's resume point (~6 KB each) in memory.
                unit.resume = None
        self.dirty.clear()
        units = {}
        for key, unit in self.units.items():
            fields = vars(unit).copy()
            fields.pop("resume")
            units[key] = fields
        payload = {
            "version": STATE_VERSION,
            "last_indexed": self.last_indexed,
            "pending": self.pending,
            "repos": self.repos,
            "skipped": self.skipped,
            "units": units,
        }
        _write_atomic(path, payload)


def clean_text(text: str) -> str:
    """Text as the memory stores it: private spans out, then credentials redacted."""
    from funes.index.privacy import strip_private
    from funes.index.redact import redact

    return redact(strip_private(text))[0]


# The first key of a resume point written cleaned (`stored_resume`): a file without it was
# written by an older funes, which stored the open turn as read.
CLEANED = "_clean"
_CLEANED_HEAD = b'{"_clean": 1'


def stored_resume(resume: dict[str, Any]) -> dict[str, Any]:
    """What rests on disk of a resume point: the open turn it carries (in full, since later
    records may add to it) cleaned as the memory's rows are, so no file holds what the memory
    does not, marked as cleaned. A turn resumed from it comes back cleaned, which the rows
    are anyway; the mark is no key any reader asks for."""
    from funes.traces.assemble import clean_resume_token

    token = {key: value for key, value in resume.items() if key != CLEANED}
    return {CLEANED: 1, **clean_resume_token(token, clean_text)}


def resume_points(state: Path | None = None) -> list[Path]:
    """The resume point files beside the state file `state` (default: the local memory's)."""
    folder = _resume_dir(state or state_path())
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def uncleaned_resume_points(state: Path | None = None) -> list[Path]:
    """Resume points an older funes wrote (no mark): they may hold an open turn as read. Cheap
    (the first bytes of each file), for `funes doctor`; `unclean_resume_points` reads them."""
    found = []
    for file in resume_points(state):
        try:
            with file.open("rb") as handle:
                if handle.read(len(_CLEANED_HEAD)) != _CLEANED_HEAD:
                    found.append(file)
        except OSError:
            continue
    return found


def unclean_resume_points(state: Path | None = None, *, fix: bool = False) -> list[Path]:
    """The resume points (beside the state file `state`, default the local memory's) that hold
    what `stored_resume` takes out: written by a funes that stored the open turn as read. With
    `fix`, each unmarked one is rewritten cleaned and marked (the caller holds the writer
    lock)."""
    found = []
    for file in uncleaned_resume_points(state):
        try:
            token = json.loads(file.read_text())
        except (OSError, ValueError):
            continue  # unreadable: its unit is read again from the start, the file rewritten
        if not isinstance(token, dict):
            continue
        cleaned = stored_resume(token)
        if {k: v for k, v in cleaned.items() if k != CLEANED} != token:
            found.append(file)
        if fix:
            _write_atomic(file, cleaned)
    return found


def _write_atomic(path: Path, payload: Any) -> None:
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

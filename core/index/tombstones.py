"""Tombstones: what `funes forget` took out of a memory, kept so it never comes back.

One JSON file per forget under `$FUNES_HOME/forgotten/` (written once, never edited, so
concurrent forgets and readers need no lock). Each names the memory it applies to (`local` for
the default one, a folder's absolute path, or an `hf://` URI), what was forgotten (a session,
a project folder, everything before a time), the sessions that matched and the chunk ids
removed. Chunk ids are hashes of coordinates, so a tombstone holds no text.

- The indexer asks a `TurnGate` which turns it may store: a forgotten session, a turn recorded
  in a forgotten folder (also sessions started there later) or before a forgotten time is never
  stored again, and private spans are stripped from the rest.
- A push publishes the chunk ids a remote still holds (see `funes.project.published`).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from funes.model import Turn
from funes.paths import funes_home, local_memory_dir

KINDS = ("session", "project", "before")
LOCAL = "local"


def tombstones_dir() -> Path:
    return funes_home() / "forgotten"


def memory_key(memory: str | Path | None) -> str:
    """How a tombstone names its memory: `local`, an absolute folder, or an `hf://` URI."""
    from funes.memory_spec import is_remote_spec

    if memory is None or (isinstance(memory, str) and memory.strip() in ("", LOCAL)):
        return LOCAL
    if isinstance(memory, str) and is_remote_spec(memory):
        from funes.memory_spec import parse_remote_spec

        return parse_remote_spec(memory).uri
    path = Path(memory).expanduser().absolute()
    return LOCAL if path == local_memory_dir().expanduser().absolute() else str(path)


@dataclass
class Tombstone:
    memory: str  # memory_key() of the memory it applies to
    kind: str  # session | project | before
    value: str  # a session id, an absolute folder, or an ISO-8601 UTC time
    at: str = ""  # when it was written (ISO-8601 UTC)
    sessions: list[str] = field(default_factory=list)  # sessions that had rows removed
    chunk_ids: list[str] = field(default_factory=list)  # rows removed

    def matches(self, turn: Turn) -> bool:
        if self.kind == "session":
            return turn.session_id == self.value or turn.session_id in self.sessions
        if self.kind == "project":
            return in_folder(turn.workdir, self.value)
        return bool(turn.ts) and turn.ts < self.value


def in_folder(workdir: str, folder: str) -> bool:
    folder = folder.rstrip("/") or "/"
    return bool(workdir) and (workdir == folder or workdir.startswith(folder.rstrip("/") + "/"))


def save(tombstone: Tombstone) -> Path:
    folder = tombstones_dir()
    folder.mkdir(parents=True, exist_ok=True)
    tombstone.at = tombstone.at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(4)}.json"
    tmp = folder / f".{name}.tmp"
    try:
        tmp.write_text(json.dumps(asdict(tombstone), indent=1) + "\n")
        os.replace(tmp, folder / name)
    except BaseException:  # a full disk refuses the write: leave no empty `.tmp` behind
        tmp.unlink(missing_ok=True)
        raise
    return folder / name


def load_all() -> list[Tombstone]:
    folder = tombstones_dir()
    found: list[Tombstone] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            raw = json.loads(path.read_text())
            found.append(
                Tombstone(
                    memory=str(raw["memory"]),
                    kind=str(raw["kind"]),
                    value=str(raw["value"]),
                    at=str(raw.get("at", "")),
                    sessions=[str(s) for s in raw.get("sessions", [])],
                    chunk_ids=[str(i) for i in raw.get("chunk_ids", [])],
                )
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a hand-edited or half-copied file must not stop indexing
    return [t for t in found if t.kind in KINDS]


def for_memory(key: str) -> list[Tombstone]:
    return [t for t in load_all() if t.memory == key]


def forgotten_ids(keys: Iterable[str]) -> set[str]:
    wanted = set(keys)
    return {i for t in load_all() if t.memory in wanted for i in t.chunk_ids}


class TurnGate:
    """Which turns an indexing run may store, and with private spans stripped."""

    def __init__(self, tombstones: list[Tombstone], memory: str | None = None) -> None:
        self.sessions = {
            s for t in tombstones if t.kind == "session" for s in [t.value, *t.sessions]
        }
        # The memory_key() a session found to descend from a forgotten one is recorded for (a
        # tombstone of its own, so its later turns stay out too); None: not recorded.
        self.memory = memory
        self.folders = [t.value for t in tombstones if t.kind == "project"]
        befores = [t.value for t in tombstones if t.kind == "before"]
        self.before = max(befores) if befores else ""
        self.dropped = 0
        self.private_blocks = 0

    @classmethod
    def for_memory(cls, memory: str | Path | None) -> TurnGate:
        key = memory_key(memory)
        return cls(for_memory(key), key)

    def forgotten(self, turn: Turn) -> bool:
        if turn.session_id in self.sessions:
            return True
        if turn.parent_uuid in self.sessions:
            # A session started from a forgotten one (a subagent, a Hermes compression split:
            # its first turn names the parent session) carries its words: forgotten with it,
            # to any depth, also when it is first seen after the forget.
            self._forget_descendant(turn.session_id)
            return True
        return any(in_folder(turn.workdir, folder) for folder in self.folders) or bool(
            self.before and turn.ts and turn.ts < self.before
        )

    def _forget_descendant(self, session: str) -> None:
        self.sessions.add(session)
        if self.memory is not None:
            save(Tombstone(memory=self.memory, kind="session", value=session, sessions=[session]))

    def admit(self, turns: Iterable[Turn]) -> list[Turn]:
        """`turns` minus forgotten ones, private spans stripped (in place) from the rest."""
        from funes.index.privacy import strip_private_turns

        kept = []
        for turn in turns:
            if self.forgotten(turn):
                self.dropped += 1
            else:
                kept.append(turn)
        self.private_blocks += strip_private_turns(kept)
        return kept

"""Transcripts an agent is about to delete that the memory does not hold whole yet.

An agent's own retention (funes.traces.retention) deletes transcripts on a schedule; what funes
indexed before that stays in the memory. A transcript is at risk when its agent deletes it
within a few days (or already would, the next time the agent starts) and the local memory has
not read it to its end: a hook that never fired, an agent added late, a backlog cut by
`funes index`'s budget. `funes doctor` warns about them and `funes status` counts them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from funes.index.state import IndexState, unit_signature
from funes.paths import claude_home, gemini_dir, hermes_home
from funes.traces.retention import (
    DAY_S,
    READERS,
    Retention,
    hermes_deadlines,
    retention_of,
)

# `funes doctor` warns about what goes within this many days.
WARN_DAYS = 3.0


@dataclass(slots=True)
class AtRisk:
    harness: str
    path: str  # the transcript (or Hermes's database)
    deadline: float  # epoch seconds: when the agent deletes it (may be past: at its next start)
    sessions: list[str] = field(default_factory=list)  # Hermes: the sessions in the database


@dataclass(slots=True)
class RetentionReport:
    rules: list[Retention]  # the agents that delete transcripts, as configured here
    at_risk: list[AtRisk]  # soonest first


def unindexed_at_risk(within_days: float = WARN_DAYS, now: float | None = None) -> RetentionReport:
    """Every agent's transcripts deleted within `within_days` that the local memory has not
    read to their end, soonest first."""
    now = time.time() if now is None else now
    horizon = now + within_days * DAY_S
    state = IndexState.load()
    rules: list[Retention] = []
    found: list[AtRisk] = []
    for harness in READERS:
        rule = retention_of(harness)
        days = rule.days if rule is not None else None
        if rule is None or days is None:
            continue
        rules.append(rule)
        if harness == "hermes":
            database = hermes_home() / "state.db"
            if database.is_file():
                found += _hermes_at_risk(rule, database, state, horizon)
            continue
        changed_before = horizon - days * DAY_S  # a transcript changed before this goes in time
        for path, mtime in _transcripts(harness):
            if mtime <= changed_before and not _read_whole(state, Path(path)):
                found.append(AtRisk(harness, path, mtime + days * DAY_S))
    return RetentionReport(rules, sorted(found, key=lambda risk: risk.deadline))


def _transcripts(harness: str) -> Iterator[tuple[str, float]]:
    """(path, last change) of each file the agent's retention deletes, by a plain walk of its
    folder: `status` and `doctor` ask on every call, and telling each file's format (as `funes
    index` does) costs seconds for thousands of transcripts. Claude Code: every `.jsonl` under
    `projects/`; Gemini CLI: the session files under `tmp/*/chats/`."""
    root = str(claude_home() / "projects" if harness == "claude_code" else gemini_dir() / "tmp")
    for folder, _, names in os.walk(root):
        if harness == "gemini" and f"{os.sep}chats" not in folder[len(root) :]:
            continue
        for name in names:
            if name.endswith(".jsonl") or (harness == "gemini" and name.endswith(".json")):
                path = os.path.join(folder, name)
                try:
                    yield path, os.stat(path).st_mtime
                except OSError:  # deleted meanwhile
                    continue


def _read_whole(state: IndexState, path: Path) -> bool:
    recorded = state.units.get(str(path))
    return recorded is not None and recorded.signature == unit_signature(path)


def _hermes_at_risk(
    rule: Retention, database: Path, state: IndexState, horizon: float
) -> list[AtRisk]:
    """Hermes prunes sessions inside one database: a session is read whole when the database's
    resume point is past its last message."""
    if database.suffix != ".db":
        return []
    soon = {sid: at for sid, at in hermes_deadlines(rule, database).items() if at <= horizon}
    if not soon or _read_whole(state, database):
        return []
    read_up_to = int(state.resume_of(str(database)).get("last_id", 0) or 0)
    last = _last_message_ids(database, list(soon))
    unread = sorted(sid for sid in soon if last.get(sid, 0) > read_up_to)
    if not unread:
        return []
    return [AtRisk("hermes", str(database), min(soon[s] for s in unread), unread)]


def _last_message_ids(database: Path, sessions: list[str]) -> dict[str, int]:
    import sqlite3

    from funes.traces.sqlite import query_readonly

    marks = ", ".join("?" for _ in sessions)
    last_ids = f"SELECT session_id, MAX(id) FROM messages WHERE session_id IN ({marks}) "
    try:
        rows = query_readonly(database, last_ids + "GROUP BY session_id", sessions)
    except sqlite3.Error:
        return {}
    return {str(sid): int(last or 0) for sid, last in rows}

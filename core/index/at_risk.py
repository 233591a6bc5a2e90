"""Transcripts an agent is about to delete that the memory does not hold whole yet.

An agent's own retention (funes.traces.retention) deletes transcripts on a schedule; what funes
indexed before that stays in the memory. A transcript is at risk when its agent deletes it
within a few days (or already would, the next time the agent starts) and the local memory has
not read it to its end: a hook that never fired, an agent added late, a backlog cut by
`funes index`'s budget. `funes doctor` warns about them and `funes status` counts them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from funes.index.state import IndexState, unit_signature
from funes.traces.retention import (
    DAY_S,
    READERS,
    Retention,
    file_deadline,
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
    from funes.index.indexer import discover_units

    now = time.time() if now is None else now
    horizon = now + within_days * DAY_S
    state = IndexState.load()
    rules: list[Retention] = []
    found: list[AtRisk] = []
    for harness in READERS:
        rule = retention_of(harness)
        if rule is None or rule.days is None:
            continue
        rules.append(rule)
        for unit in discover_units(harness=harness):
            if harness == "hermes":
                found += _hermes_at_risk(rule, unit.path, state, horizon)
                continue
            deadline = file_deadline(rule, unit.path)
            if deadline is not None and deadline <= horizon and not _read_whole(state, unit.path):
                found.append(AtRisk(harness, str(unit.path), deadline))
    return RetentionReport(rules, sorted(found, key=lambda risk: risk.deadline))


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

    from funes.traces.sqlite import connect_readonly

    marks = ", ".join("?" for _ in sessions)
    try:
        conn = connect_readonly(database)
        try:
            rows = conn.execute(
                f"SELECT session_id, MAX(id) FROM messages WHERE session_id IN ({marks}) "
                "GROUP BY session_id",
                sessions,
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return {}
    return {str(sid): int(last or 0) for sid, last in rows}

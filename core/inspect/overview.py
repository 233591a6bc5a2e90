"""What is in a memory at a glance: counts per agent and per project, activity over time, and
how many secrets were redacted, by kind.

Redactions are counted from the `[REDACTED:<kind>]` markers the indexer leaves in stored text
(the memory keeps no other record of them); a marker in the overlap of two split chunks of one
block is counted once per chunk.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

REDACTION = re.compile(r"\[REDACTED:([A-Za-z0-9_.\-]+)\]")
MAX_PROJECTS = 30
# Activity is shown per day while it spans at most this many days, per week beyond.
DAILY_SPAN_DAYS = 92


@dataclass(slots=True)
class Overview:
    memory: str
    chunks: int = 0
    turns: int = 0
    sessions: int = 0
    agents: dict[str, dict[str, int]] = field(default_factory=dict)  # harness → counts
    projects: list[dict[str, Any]] = field(default_factory=list)  # biggest first
    activity_unit: str = "day"  # "day" | "week": what one bin of `activity` covers
    activity: list[dict[str, Any]] = field(default_factory=list)  # {"period", harness: turns}
    redactions: dict[str, int] = field(default_factory=dict)  # kind → markers
    notes: list[str] = field(default_factory=list)


def overview(memory: str | None = None) -> Overview:
    """The overview of `memory` (raises MemoryNotFound when there is none)."""
    from funes.memory import open_memory

    opened = open_memory(memory)
    return overview_of_store(opened.store, opened.label, list(opened.notes))


def overview_of_store(store: Any, label: str, notes: list[str] | None = None) -> Overview:
    result = Overview(memory=label, notes=list(notes or []))
    table = store.scan(["harness", "workdir", "repo", "session_id", "turn_uuid", "ts"])
    result.chunks = table.num_rows
    if table.num_rows:
        _counts(table, result)
    result.redactions = redaction_counts(store)
    return result


def _counts(table: Any, result: Overview) -> None:
    # Turns are the unit people think in; one grouping by turn answers every count below.
    turns = table.group_by(["harness", "workdir", "repo", "session_id", "turn_uuid"]).aggregate(
        [("ts", "min"), ("ts", "count")]
    )
    rows = turns.to_pylist()
    result.turns = len(rows)
    result.sessions = len({r["session_id"] for r in rows})
    agents: dict[str, dict[str, Any]] = {}
    projects: dict[str, dict[str, Any]] = {}
    for r in rows:
        harness = r["harness"] or "unknown"
        agent = agents.setdefault(harness, {"sessions": set(), "turns": 0, "chunks": 0})
        agent["sessions"].add(r["session_id"])
        agent["turns"] += 1
        agent["chunks"] += r["ts_count"]
        where = r["workdir"] or r["repo"] or "-"
        project = projects.setdefault(
            where, {"project": where, "sessions": set(), "turns": 0, "chunks": 0, "agents": set()}
        )
        project["sessions"].add(r["session_id"])
        project["turns"] += 1
        project["chunks"] += r["ts_count"]
        project["agents"].add(harness)
    result.agents = {
        name: {"sessions": len(a["sessions"]), "turns": a["turns"], "chunks": a["chunks"]}
        for name, a in sorted(agents.items())
    }
    ranked = sorted(projects.values(), key=lambda p: (-p["turns"], p["project"]))
    result.projects = [
        {**p, "sessions": len(p["sessions"]), "agents": sorted(p["agents"])}
        for p in ranked[:MAX_PROJECTS]
    ]
    result.activity_unit, result.activity = _activity(
        [(r["ts_min"] or "", r["harness"] or "unknown") for r in rows]
    )


def _activity(stamps: list[tuple[str, str]]) -> tuple[str, list[dict[str, Any]]]:
    """Turns per day (or per ISO week, Monday first) and agent, oldest first, gaps filled."""
    from datetime import date, timedelta

    days = []
    for ts, harness in stamps:
        try:
            days.append((date.fromisoformat(ts[:10]), harness))
        except ValueError:
            continue  # no recorded time: not on the timeline
    if not days:
        return "day", []
    first, last = min(d for d, _ in days), max(d for d, _ in days)
    weekly = (last - first).days > DAILY_SPAN_DAYS
    step = timedelta(days=7 if weekly else 1)

    def period(day: date) -> date:
        return day - timedelta(days=day.weekday()) if weekly else day

    counts: dict[date, Counter[str]] = {}
    for day, harness in days:
        counts.setdefault(period(day), Counter())[harness] += 1
    bins = []
    cursor = period(first)
    while cursor <= last:
        bins.append({"period": cursor.isoformat(), **counts.get(cursor, {})})
        cursor += step
    return ("week" if weekly else "day"), bins


def redaction_counts(store: Any) -> dict[str, int]:
    """`[REDACTED:<kind>]` markers in stored text, by kind (most frequent first)."""
    try:
        rows = store.scan(["text"], where="contains(text, '[REDACTED:')")
    except Exception:  # a memory format without `contains`: count nothing rather than fail
        return {}
    found: Counter[str] = Counter()
    for text in rows.column("text").to_pylist():
        found.update(REDACTION.findall(text or ""))
    return dict(found.most_common())


def overview_json(result: Overview) -> dict[str, Any]:
    return {
        "memory": result.memory,
        "chunks": result.chunks,
        "turns": result.turns,
        "sessions": result.sessions,
        "agents": result.agents,
        "projects": result.projects,
        "activity_unit": result.activity_unit,
        "activity": result.activity,
        "redactions": result.redactions,
        "notes": result.notes,
    }

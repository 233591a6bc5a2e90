"""What is in a memory at a glance: counts per agent and per project, activity over time, and
how many secrets were redacted, by kind.

Redactions are counted from the `[REDACTED:<kind>]` markers the indexer leaves in stored text
(the memory keeps no other record of them); a marker in the overlap of two split chunks of one
block is counted once per chunk.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

REDACTION = re.compile(r"\[REDACTED:([A-Za-z0-9_.\-]+)\]")
MAX_PROJECTS = 30
# Activity is shown per day while it spans at most this many days, per week up to
# WEEKLY_SPAN_DAYS, per month beyond.
DAILY_SPAN_DAYS = 92
WEEKLY_SPAN_DAYS = 3 * 365


@dataclass(slots=True)
class Overview:
    memory: str
    chunks: int = 0
    turns: int = 0
    sessions: int = 0
    agents: dict[str, dict[str, int]] = field(default_factory=dict)  # harness → counts
    projects: list[dict[str, Any]] = field(default_factory=list)  # biggest first
    activity_unit: str = "day"  # "day" | "week" | "month": what one bin of `activity` covers
    activity: list[dict[str, Any]] = field(default_factory=list)  # {"period", harness: turns}
    redactions: dict[str, int] = field(default_factory=dict)  # kind → markers
    notes: list[str] = field(default_factory=list)


def overview(memory: str | None = None) -> Overview:
    """The overview of `memory` (raises MemoryNotFound when there is none)."""
    from funes.sync.memory import open_memory

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
    """Every count from one grouping by turn, done in Arrow (a memory has 100k+ turns)."""
    import pyarrow.compute as pc

    # Turns are the unit people think in: one row per turn, with its chunk count and start.
    turns = table.group_by(["harness", "workdir", "repo", "session_id", "turn_uuid"]).aggregate(
        [("ts", "min"), ("ts", "count")]
    )
    harness = pc.if_else(pc.equal(turns["harness"], ""), "unknown", turns["harness"])
    where = pc.if_else(pc.equal(turns["workdir"], ""), turns["repo"], turns["workdir"])
    where = pc.if_else(pc.equal(where, ""), "-", where)
    turns = turns.append_column("agent", harness).append_column("project", where)
    result.turns = turns.num_rows
    result.sessions = len(pc.unique(turns["session_id"]))

    per_agent = turns.group_by("agent").aggregate(
        [("session_id", "count_distinct"), ("turn_uuid", "count"), ("ts_count", "sum")]
    )
    result.agents = {
        row["agent"]: {
            "sessions": row["session_id_count_distinct"],
            "turns": row["turn_uuid_count"],
            "chunks": row["ts_count_sum"],
        }
        for row in sorted(per_agent.to_pylist(), key=lambda r: r["agent"])
    }
    per_project = turns.group_by("project").aggregate(
        [
            ("session_id", "count_distinct"),
            ("turn_uuid", "count"),
            ("ts_count", "sum"),
            ("agent", "distinct"),
        ]
    )
    ranked = sorted(per_project.to_pylist(), key=lambda r: (-r["turn_uuid_count"], r["project"]))
    result.projects = [
        {
            "project": row["project"],
            "sessions": row["session_id_count_distinct"],
            "turns": row["turn_uuid_count"],
            "chunks": row["ts_count_sum"],
            "agents": sorted(row["agent_distinct"]),
        }
        for row in ranked[:MAX_PROJECTS]
    ]
    day = pc.utf8_slice_codeunits(pc.fill_null(turns["ts_min"], ""), 0, 10)
    per_day = (
        turns.append_column("day", day)
        .group_by(["day", "agent"])
        .aggregate([("turn_uuid", "count")])
        .to_pylist()
    )
    result.activity_unit, result.activity = _activity(
        [(r["day"], r["agent"], r["turn_uuid_count"]) for r in per_day]
    )


def _activity(counts: list[tuple[str, str, int]]) -> tuple[str, list[dict[str, Any]]]:
    """Turns per day (or per ISO week, Monday first) and agent, oldest first, gaps filled;
    `counts` holds (YYYY-MM-DD, agent, turns)."""
    from datetime import date, timedelta

    days: list[tuple[date, str, int]] = []
    for stamp, harness, n in counts:
        try:
            days.append((date.fromisoformat(stamp), harness, n))
        except ValueError:
            continue  # no recorded time: not on the timeline
    if not days:
        return "day", []
    first, last = min(d for d, _, _ in days), max(d for d, _, _ in days)
    span = (last - first).days
    unit = "day" if span <= DAILY_SPAN_DAYS else "week" if span <= WEEKLY_SPAN_DAYS else "month"

    def period(day: date) -> date:
        if unit == "week":
            return day - timedelta(days=day.weekday())
        return day.replace(day=1) if unit == "month" else day

    def following(start: date) -> date:
        if unit == "month":
            return date(start.year + start.month // 12, start.month % 12 + 1, 1)
        return start + timedelta(days=7 if unit == "week" else 1)

    bins_by_period: dict[date, Counter[str]] = {}
    for day, harness, n in days:
        bins_by_period.setdefault(period(day), Counter())[harness] += n
    bins = []
    cursor = period(first)
    while cursor <= last:
        bins.append({"period": cursor.isoformat(), **bins_by_period.get(cursor, {})})
        cursor = following(cursor)
    return unit, bins


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
    """Every field of the overview, in order, as JSON-ready values."""
    return asdict(result)

"""How long each agent keeps its own transcripts before it deletes them, read from its settings.

- Claude Code: `cleanupPeriodDays` in `~/.claude/settings.json` (default 30). At start-up it
  deletes every file under `projects/` not modified for that many days. A value it rejects
  (0, a negative number, not an integer) makes it skip the cleanup.
- Gemini CLI: `general.sessionRetention` in `~/.gemini/settings.json`: on by default since its
  settings schema gave it defaults (`enabled` true, `maxAge` "30d" in 0.61), session files last
  updated more than `maxAge` ("30d", "12h", "2w", "1m") ago go at start-up.
- Hermes: `sessions.auto_prune` (off by default) in `~/.hermes/config.yaml`; when on, ended
  sessions started more than `sessions.retention_days` (default 90) ago leave `state.db`.

The agents that are not listed keep their transcripts until the user deletes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from funes.paths import claude_home, gemini_dir, hermes_home

DAY_S = 86400.0
CLAUDE_DEFAULT_DAYS = 30
HERMES_DEFAULT_DAYS = 90
GEMINI_DEFAULT_AGE = "30d"
# A transcript this close to its deletion is "at risk": the first index and the budgeted runs
# read it before the newest ones, while there is still time for a later run to finish it.
AT_RISK_DAYS = 7.0
T = TypeVar("T")
_GEMINI_AGE = re.compile(r"^\s*(\d+)\s*([hdwm])\s*$")
_GEMINI_UNIT_DAYS = {"h": 1 / 24, "d": 1.0, "w": 7.0, "m": 30.0}


@dataclass(frozen=True, slots=True)
class Retention:
    """One agent's deletion rule as configured on this machine."""

    harness: str
    agent: str  # its name as people write it
    days: float | None  # transcripts go after this many days; None: the agent keeps them
    setting: str  # the setting that says so, and its file
    configured: bool  # the user set it (False: the agent's default)
    problem: str = ""  # the setting could not be read as the agent reads it (said as is)

    def describe(self) -> str:
        """One sentence for people: what the agent deletes, and which setting says so."""
        where = f"{self.setting}{'' if self.configured else ', its default'}"
        if self.problem:
            return f"{self.agent}: {self.problem} ({self.setting})"
        if self.days is None:
            return f"{self.agent} keeps its transcripts ({where})"
        return f"{self.agent} deletes transcripts after {_days(self.days)} ({where})"


def _days(days: float) -> str:
    if days < 1:
        return f"{round(days * 24)} hours"
    return f"{days:g} day" + ("" if days == 1 else "s")


def claude_retention() -> Retention:
    path = claude_home() / "settings.json"
    retention = partial(
        Retention, "claude_code", "Claude Code", setting=f"`cleanupPeriodDays` in {path}"
    )
    data = _json_settings(path)
    if data is None:  # Claude Code skips its cleanup when its settings do not parse.
        return retention(None, configured=False, problem=_UNREADABLE)
    value = data.get("cleanupPeriodDays")
    if value is None:
        return retention(CLAUDE_DEFAULT_DAYS, configured=False)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        problem = f"cleanupPeriodDays {json.dumps(value)} is not a whole number ≥ 1, so Claude "
        problem += "Code skips its cleanup until it is fixed"
        return retention(None, configured=True, problem=problem)
    return retention(float(value), configured=True)


_UNREADABLE = "its settings file does not parse, so it deletes nothing until it is fixed"


def _json_settings(path: Path) -> dict[str, Any] | None:
    """The agent's JSON settings file as an object ({} when there is none, or it holds no
    object); None when it cannot be read or does not parse."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else {}


def gemini_retention() -> Retention:
    path = gemini_dir() / "settings.json"
    retention = partial(
        Retention, "gemini", "Gemini CLI", setting=f"`general.sessionRetention` in {path}"
    )
    data = _json_settings(path)
    if data is None:
        return retention(None, configured=False, problem=_UNREADABLE)
    general = data.get("general")
    found = general.get("sessionRetention") if isinstance(general, dict) else None
    rule = found if isinstance(found, dict) else {}
    configured = bool(rule)
    # Gemini CLI's own defaults (0.61): on, 30 days; the user's keys override each.
    if rule.get("enabled", True) is not True:
        return retention(None, configured=configured)
    age = _GEMINI_AGE.match(str(rule.get("maxAge", GEMINI_DEFAULT_AGE)))
    if age is None:  # an age Gemini CLI rejects: it skips its cleanup
        problem = 'its sessionRetention.maxAge is not an age such as "30d", so Gemini CLI '
        problem += "skips its cleanup until it is fixed"
        return retention(None, configured=configured, problem=problem)
    days = int(age.group(1)) * _GEMINI_UNIT_DAYS[age.group(2)]
    return retention(days, configured="maxAge" in rule)


def hermes_retention() -> Retention:
    path = hermes_home() / "config.yaml"
    setting = f"`sessions.auto_prune` and `sessions.retention_days` in {path}"
    retention = partial(Retention, "hermes", "Hermes", setting=setting)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError:
        return retention(None, configured=False, problem=_UNREADABLE)
    sessions = _yaml_mapping(text).get("sessions")
    if not isinstance(sessions, dict) or "auto_prune" not in sessions:
        return retention(None, configured=False)
    if sessions.get("auto_prune") is not True:
        return retention(None, configured=True)
    days = sessions.get("retention_days", HERMES_DEFAULT_DAYS)
    if isinstance(days, bool) or not isinstance(days, int | float) or days <= 0:
        days = HERMES_DEFAULT_DAYS
    return retention(float(days), configured=True)


def _yaml_mapping(text: str) -> dict[str, object]:
    if not text.strip():
        return {}
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe").load(text)
    except YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


READERS = {"claude_code": claude_retention, "gemini": gemini_retention, "hermes": hermes_retention}


def retention_of(harness: str) -> Retention | None:
    """The agent's deletion rule (None for an agent that never deletes its transcripts)."""
    reader = READERS.get(harness)
    return reader() if reader is not None else None


def file_deadline(retention: Retention | None, path: Path) -> float | None:
    """When the agent deletes the transcript file `path` (epoch seconds), or None when it does
    not: Claude Code and Gemini CLI go by the file's last change. (Hermes prunes sessions
    inside its database, by when each started: `hermes_deadlines`.)"""
    if retention is None or retention.days is None or retention.harness == "hermes":
        return None
    try:
        return path.stat().st_mtime + retention.days * DAY_S
    except OSError:
        return None


def hermes_deadlines(retention: Retention, database: Path) -> dict[str, float]:
    """Session id → when Hermes's prune deletes it ({} when it does not prune). Only ended
    sessions are pruned, by the time they started."""
    if retention.days is None or not database.exists():
        return {}
    import sqlite3

    from funes.traces.sqlite import query_readonly

    ended = "SELECT id, started_at FROM sessions WHERE ended_at IS NOT NULL"
    try:
        rows = query_readonly(database, ended)
    except sqlite3.Error:
        return {}
    return {
        str(sid): float(started) + retention.days * DAY_S
        for sid, started in rows
        if isinstance(started, int | float)
    }


def unit_deadline(harness: str, path: Path, rules: dict[str, Retention | None]) -> float | None:
    """When the agent deletes (part of) the unit `path`, or None; `rules` caches each agent's
    rule across calls."""
    if harness not in rules:
        rules[harness] = retention_of(harness)
    rule = rules[harness]
    if rule is not None and rule.harness == "hermes" and path.suffix == ".db":
        return min(hermes_deadlines(rule, path).values(), default=None)
    return file_deadline(rule, path)


def soonest_deleted_first(items: list[T], key: Callable[[T], tuple[str, Path]]) -> list[T]:
    """`items` (units, newest first) with those their agent deletes within AT_RISK_DAYS moved to
    the front, soonest first; the rest keep their order. Only the ones at risk move: a rule of
    ten years would otherwise put ten years of history before this week's sessions."""
    import time

    horizon = time.time() + AT_RISK_DAYS * DAY_S
    rules: dict[str, Retention | None] = {}
    at_risk: list[tuple[float, int]] = []
    for position, item in enumerate(items):
        try:
            deadline = unit_deadline(*key(item), rules)
        except Exception:  # an order is a preference: it never stops an index
            deadline = None
        if deadline is not None and deadline <= horizon:
            at_risk.append((deadline, position))
    if not at_risk:
        return list(items)
    first = [position for _, position in sorted(at_risk)]
    moved = set(first)
    return [items[p] for p in first] + [it for p, it in enumerate(items) if p not in moved]

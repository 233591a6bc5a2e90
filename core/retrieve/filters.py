"""Recall filters, applied inside both searches (Lance prefilter) as one SQL predicate."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from funes.model import BLOCK_TYPES, HARNESS_CHOICES, normalise_harness

_RELATIVE = re.compile(r"^\s*(\d+)\s*([hdwmy])\s*$", re.IGNORECASE)
_UNIT_DAYS = {"h": 1 / 24, "d": 1, "w": 7, "m": 30, "y": 365}


@dataclass(frozen=True, slots=True)
class FilterSpec:
    """One recall filter as every surface spells it. `name` is the Filters field, the keyword of
    `recall()` and `Filters.build`, and the MCP tool's parameter; `flag` and `help` make the CLI
    option (`flag` without its dashes is also the `funes ui` query parameter); `choices` are the
    values the CLI offers (elsewhere `Filters.build` says what is wrong)."""

    name: str
    flag: str
    help: str
    choices: tuple[str, ...] = ()


def _parse_harness(value: str, now: datetime) -> str | None:
    return normalise_harness(value) if value else None


def _parse_block_type(value: str, now: datetime) -> str | None:
    if value not in BLOCK_TYPES:
        raise ValueError(f"unknown block type {value!r}: expected one of {', '.join(BLOCK_TYPES)}")
    return value


def _parse_text(value: str, now: datetime) -> str | None:
    return value.strip() or None


# An exact text is a line or two (an error message, an identifier), not a document.
MAX_EXACT_CHARS = 500


def _parse_exact(value: str, now: datetime) -> str | None:
    # Spaces inside count (an error message's words in order); a blank one is no filter.
    if len(value) > MAX_EXACT_CHARS:
        raise ValueError(
            f"--has text too long: {len(value):,} characters, at most {MAX_EXACT_CHARS}; "
            "give the distinctive part"
        )
    return value if value.strip() else None


def _parse_since(value: str, now: datetime) -> str | None:
    return parse_when(value, now=now, end_of_day=False) if value else None


def _parse_until(value: str, now: datetime) -> str | None:
    return parse_when(value, now=now, end_of_day=True) if value else None


def _filter(
    parse: Callable[[str, datetime], str | None],
    flag: str,
    help: str,
    choices: tuple[str, ...] = (),
) -> Any:
    """A Filters field: None unless given; how to read what the user typed; its CLI option."""
    return field(default=None, metadata={"parse": parse, "cli": (flag, help, choices)})


@dataclass(frozen=True, slots=True)
class Filters:
    """The recall filters, declared once: each field is a filter (its CLI option and how user
    input is read are in its metadata); FILTERS lists them for the CLI, the MCP tool and the
    web UI. The values are validated and normalised (`build`)."""

    # stored facet, already normalised
    harness: str | None = _filter(
        _parse_harness, "--harness", "Only this agent's sessions.", HARNESS_CHOICES
    )
    block_type: str | None = _filter(
        _parse_block_type, "--type", "Only this kind of block.", BLOCK_TYPES
    )
    # substring of the workdir or of a repo identity
    project: str | None = _filter(
        _parse_text,
        "--project",
        "Only sessions whose workdir or git repo contains this text (or that were asked, "
        "from elsewhere, about a path in such a folder).",
    )
    # text a passage must hold, case-insensitive, as it is (no word splitting): grep -Fi
    has: str | None = _filter(
        _parse_exact,
        "--has",
        "Only passages holding this exact text (case-insensitive, like grep -Fi): an "
        "identifier, an error message, a path.",
    )
    # ISO-8601 UTC lower bound (inclusive)
    since: str | None = _filter(
        _parse_since,
        "--since",
        "Only from this time on: 2026-01-31, an ISO timestamp, or 7d/12h/2w.",
    )
    # ISO-8601 UTC upper bound (exclusive)
    until: str | None = _filter(
        _parse_until, "--until", "Only before this time (a bare date includes that day)."
    )
    # a session id or a prefix of one (agent format shows 8 chars)
    session: str | None = _filter(
        _parse_text, "--session", "Only this session (an id or a prefix of one)."
    )
    # Not a filter of its own: the sessions `project` also keeps, which worked on it from
    # another folder (funes.retrieve.project_paths); found in the memory, never typed.
    project_sessions: tuple[str, ...] = ()

    @classmethod
    def build(cls, *, now: datetime | None = None, **given: str | None) -> Filters:
        """Validate user input (keywords: FILTER_NAMES; None or absent: not filtered) into
        filters; raises ValueError with a message fit for the user."""
        unknown = sorted(set(given) - set(FILTER_NAMES))
        if unknown:
            raise TypeError(f"unknown filter(s): {', '.join(unknown)}")
        moment = now or datetime.now(UTC)
        values: dict[str, Any] = {}
        for spec in fields(cls):
            if "parse" not in spec.metadata:
                continue
            raw = given.get(spec.name)
            values[spec.name] = None if raw is None else spec.metadata["parse"](raw, moment)
        return cls(**values)

    def without(self, name: str) -> Filters:
        """These filters less filter `name`."""
        unset: dict[str, Any] = {name: None}
        return replace(self, **unset)

    @staticmethod
    def only(name: str, value: str) -> Filters:
        """Filter `name` alone, set to `value` (already read)."""
        given: dict[str, Any] = {name: value}
        return Filters(**given)

    def to_sql(self) -> str | None:
        clauses: list[str] = []
        if self.harness:
            clauses.append(f"harness = {quote_sql(self.harness)}")
        if self.block_type:
            clauses.append(f"block_type = {quote_sql(self.block_type)}")
        if self.project:
            p = quote_sql(self.project)
            elsewhere = ", ".join(quote_sql(s) for s in self.project_sessions)
            pointed = f" OR session_id IN ({elsewhere})" if elsewhere else ""
            clauses.append(f"(contains(workdir, {p}) OR contains(repo, {p}){pointed})")
        if self.has:
            clauses.append(holds_text_sql(self.has))
        if self.since:
            clauses.append(f"ts >= {quote_sql(self.since)}")
        if self.until:
            clauses.append(f"ts < {quote_sql(self.until)}")
        if self.session:
            clauses.append(f"starts_with(session_id, {quote_sql(self.session)})")
        return " AND ".join(clauses) or None


def parse_when(text: str, *, now: datetime | None = None, end_of_day: bool = False) -> str:
    """`7d`, `12h`, `2w`, `3m`, `1y` (ago), `2026-01-31` or a full ISO timestamp → ISO UTC.

    A bare date used as an upper bound means the end of that day, so `--until 2026-01-31`
    includes the 31st.
    """
    now = now or datetime.now(UTC)
    rel = _RELATIVE.match(text)
    if rel:
        days = int(rel.group(1)) * _UNIT_DAYS[rel.group(2).lower()]
        return _iso(now - timedelta(days=days))
    raw = text.strip()
    try:
        if len(raw) == 10:
            day = date.fromisoformat(raw)
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
            return _iso(moment + timedelta(days=1) if end_of_day else moment)
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"can't read the time {text!r}: use a date (2026-01-31), a timestamp, "
            "or an age like 7d, 12h, 2w"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _iso(moment)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def quote_sql(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def holds_text_sql(text: str) -> str:
    """A predicate true for passages holding `text`, case-insensitive: LIKE's own wildcards
    (`%`, `_`, common in identifiers) and its escape character are matched as themselves."""
    literal = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"text ILIKE {quote_sql('%' + literal + '%')} ESCAPE '\\'"


FILTERS: tuple[FilterSpec, ...] = tuple(
    FilterSpec(spec.name, *spec.metadata["cli"]) for spec in fields(Filters) if spec.metadata
)
FILTER_NAMES: tuple[str, ...] = tuple(spec.name for spec in FILTERS)

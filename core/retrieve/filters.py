"""Recall filters, applied inside both searches (Lance prefilter) as one SQL predicate."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from funes.model import BLOCK_TYPES, normalise_harness

_RELATIVE = re.compile(r"^\s*(\d+)\s*([hdwmy])\s*$", re.IGNORECASE)
_UNIT_DAYS = {"h": 1 / 24, "d": 1, "w": 7, "m": 30, "y": 365}


@dataclass(frozen=True, slots=True)
class Filters:
    harness: str | None = None  # stored facet, already normalised
    block_type: str | None = None
    project: str | None = None  # substring of the workdir or of a repo identity
    since: str | None = None  # ISO-8601 UTC lower bound (inclusive)
    until: str | None = None  # ISO-8601 UTC upper bound (exclusive)
    session: str | None = None  # a session id or a prefix of one (agent format shows 8 chars)

    @classmethod
    def build(
        cls,
        *,
        harness: str | None = None,
        block_type: str | None = None,
        project: str | None = None,
        since: str | None = None,
        until: str | None = None,
        session: str | None = None,
        now: datetime | None = None,
    ) -> Filters:
        """Validate user input into filters; raises ValueError with a message fit for the user."""
        if block_type is not None and block_type not in BLOCK_TYPES:
            raise ValueError(
                f"unknown block type {block_type!r}: expected one of {', '.join(BLOCK_TYPES)}"
            )
        return cls(
            harness=normalise_harness(harness) if harness else None,
            block_type=block_type or None,
            project=project.strip() or None if project else None,
            since=parse_when(since, now=now, end_of_day=False) if since else None,
            until=parse_when(until, now=now, end_of_day=True) if until else None,
            session=session.strip() or None if session else None,
        )

    def to_sql(self) -> str | None:
        clauses: list[str] = []
        if self.harness:
            clauses.append(f"harness = {quote_sql(self.harness)}")
        if self.block_type:
            clauses.append(f"block_type = {quote_sql(self.block_type)}")
        if self.project:
            p = quote_sql(self.project)
            clauses.append(f"(contains(workdir, {p}) OR contains(repo, {p}))")
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

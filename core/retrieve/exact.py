"""The filters a recall runs with, once resolved against the memory.

`--has TEXT` (passages holding an exact text) is a scan of every passage's text: 0.65 s at 318k
chunks, and a recall filters five times (two searches, the answer and output lifts, the
partners). So the passages that hold it are found once and the rest filter by their ids, which
the id index answers at once.

A filter that names nothing in the memory (a project no session's folder or repo contains, a
session id nobody has, a text no passage holds) is a slip, not a wish for an empty page: the
search runs without it and a note says so plainly, which saves the caller (often an agent with
a budget of calls) a second try. A filter that matches passages, just none together with the
others, stays: that empty page is the answer, and a note says which filter to leave out to
find passages (`why_empty`): agents in the benchmark spent a call guessing which of
`--project X --since D` emptied the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from funes.retrieve.filters import FILTERS, Filters, quote_sql

# Past this many holders, the text predicate itself filters (an id list this long costs more
# than the scans it saves). At 318k chunks: 8,652 holders by id, 1.0 s a recall; by the
# predicate, 2.6 s; 81k holders by id, 3.1 s against 2.6 s.
MAX_HOLDER_IDS = 20_000
# Past this many calls holding the text, their outputs are not added (`--type tool_result`).
MAX_CALL_HOLDERS = 2_000


@dataclass(slots=True)
class Resolved:
    """A recall's SQL filter and what was said about the filters it was built from."""

    where: str | None
    notes: list[str]
    # The exact text every passage must hold, if that filter stands.
    exact: str = ""
    # The filters that stand (a slip dropped).
    filters: Filters = field(default_factory=Filters)
    # A missing parent's subagent sessions, searched in its stead (`--session PARENT`).
    sessions: list[str] = field(default_factory=list)
    # A filter named nothing and was dropped, nothing searched in its stead.
    slipped: bool = False


def resolve(store: Any, filters: Filters, *, drop_slips: bool = True) -> Resolved:
    """`filters` as one SQL filter; with `drop_slips`, without those that name nothing here."""
    notes: list[str] = []
    children: list[str] = []  # see Resolved.sessions
    slipped = False
    if filters.project:
        filters = with_project_sessions(store, filters)
    for name, said in _SLIPS.items():
        value = getattr(filters, name)
        if drop_slips and value and names_nothing(store, name, value):
            if name == "session":
                children = subagents_of(store, value)
            slipped = slipped or not (name == "session" and children)
            notes.append(
                _OF_PARENT.format(value, len(children)) if children else said.format(value)
            )
            filters = filters.without(name)
    text = filters.has
    where = _and(filters.to_sql(), children)
    if not text:
        return Resolved(where, notes, "", filters, children, slipped)
    holders = store.scan(["id"], where=where).column("id").to_pylist()
    if filters.block_type == "tool_result":
        holders += outputs_of_calls_holding(store, filters, children, set(holders))
    others = replace(filters, has=None)
    # Only an empty answer asks whether the text is held anywhere at all (a second scan).
    if drop_slips and not holders and names_nothing(store, "has", text):
        notes.append(_NO_HOLDER.format(text))
        return Resolved(_and(others.to_sql(), children), notes, "", others, children, True)
    if not holders or len(holders) > MAX_HOLDER_IDS:
        # None among the other filters (that empty page is the answer), or too many to list.
        return Resolved(where, notes, text, filters, children, slipped)
    rest = _and(others.to_sql(), children)
    ids = f"id IN ({', '.join(quote_sql(i) for i in holders)})"
    where = f"{rest} AND {ids}" if rest else ids
    return Resolved(where, notes, text, filters, children, slipped)


def outputs_of_calls_holding(
    store: Any, filters: Filters, sessions: list[str], known: set[str]
) -> list[str]:
    """The ids of the tool outputs (of `filters`, less its text) whose own call holds the text:
    `--has cli.py --type tool_result` means what reading `cli.py` returned, and the output of a
    Read holds the file, not its path (agentic benchmark: ten such calls, all for h-c073, all
    came back without the read they were after). Paired by tool-use id; none past
    MAX_CALL_HOLDERS calls."""
    from funes.index.store import TOOL_USE_ID

    if TOOL_USE_ID not in store.table.schema.names:
        return []
    calls_where = _and(replace(filters, block_type="tool_use").to_sql(), sessions)
    calls = store.scan(["session_id", TOOL_USE_ID], where=calls_where).to_pylist()
    pairs = {(c["session_id"], c[TOOL_USE_ID]) for c in calls if c[TOOL_USE_ID]}
    if not pairs or len(pairs) > MAX_CALL_HOLDERS:
        return []
    ids = ", ".join(quote_sql(call_id) for _, call_id in sorted(pairs))
    outputs_where = _and(replace(filters, has=None).to_sql(), sessions)
    paired = f"{TOOL_USE_ID} IN ({ids})"
    rows = store.scan(
        ["id", "session_id", TOOL_USE_ID],
        where=f"{outputs_where} AND {paired}" if outputs_where else paired,
    ).to_pylist()
    return [
        row["id"]
        for row in rows
        if (row["session_id"], row[TOOL_USE_ID]) in pairs and row["id"] not in known
    ]


def why_empty(resolved: Resolved, store: Any) -> str | None:
    """For filters that each match passages but none together: which one to leave out, and
    how many passages the others match (with their dates, when a time bound is among them).
    A missing parent's subagent sessions (Resolved.sessions) count as the `--session` filter."""
    filters, sessions = resolved.filters, resolved.sessions
    # Each filter given, and the SQL of all the others.
    without = [
        (spec.name, spec.flag, _and(filters.without(spec.name).to_sql(), sessions))
        for spec in FILTERS
        if getattr(filters, spec.name)
    ]
    if sessions:
        without.append(("session", "--session", filters.to_sql()))
    if len(without) < 2:
        return None
    ways = []
    for name, flag, others in without:
        count = int(store.table.count_rows(others))
        if not count:
            continue
        way = f"without {flag}, {count:,} do"
        if name in ("since", "until"):
            stamps = store.scan(["ts"], where=others).column("ts").to_pylist()
            stamps = sorted(ts for ts in stamps if ts)
            if stamps:
                way += f" ({stamps[0][:10]} to {stamps[-1][:10]})"
        ways.append(way)
    if not ways:
        return None
    return "no passage matches these filters together; " + "; ".join(ways)


def subagents_of(store: Any, parent: str) -> list[str]:
    """The subagent sessions whose parent's id starts with `parent`: a page names a stray
    subagent's parent (Claude Code may leave the parent's transcript empty), and what the
    memory holds of that parent is its subagents (funes.retrieve.subagents)."""
    from funes.retrieve.subagents import parents

    return sorted(parents(store, parent_prefix=parent))


def _and(where: str | None, sessions: list[str]) -> str | None:
    """`where`, and only `sessions` when there are any."""
    if not sessions:
        return where
    only = f"session_id IN ({', '.join(quote_sql(s) for s in sessions)})"
    return f"{where} AND {only}" if where else only


def names_nothing(store: Any, name: str, value: str) -> bool:
    """Whether filter `name` alone, set to `value`, matches no row of the memory."""
    alone = Filters.only(name, value)
    if name == "project":
        alone = with_project_sessions(store, alone)
    return int(store.table.count_rows(alone.to_sql())) == 0


def with_project_sessions(store: Any, filters: Filters) -> Filters:
    """`filters` whose project also keeps the sessions that worked on it from elsewhere."""
    from funes.retrieve.project_paths import sessions_pointed_at

    if not filters.project:
        return filters
    return replace(filters, project_sessions=sessions_pointed_at(store, filters.project))


# What is said of a project or session filter that names nothing, and is dropped.
_SLIPS = {
    "project": "no session's folder or repo contains {!r}: these places are from every project",
    "session": "no session id starts with {!r}: these places are from every session",
}
_NO_HOLDER = "no passage holds the exact text {!r}: these places match its words"
# A session the memory lacks whose subagents it holds.
_OF_PARENT = "no session id starts with {!r}: these places are from its {} subagent session(s)"

"""Session handles: how a session is named wherever funes prints it, so that it works as printed.

A handle is a session id's first 8 characters, lengthened where another session in the same
memory starts with them (real memories have them: pi and Codex ids that begin with the same
time-ordered hex, Hermes ids that begin with the day, Claude subagents' `agent-65…`). `funes
get`, `funes show` and the MCP `get` tool accept any handle as a prefix; a prefix that names
several sessions is answered with their handles.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from funes.retrieve.filters import quote_sql

MIN_HANDLE = 8
# Past this many prefixes, one scan of every session id beats a filter of that many ranges.
RANGES_AT_MOST = 64
# How many sessions an ambiguous prefix's error names.
CANDIDATES_SHOWN = 10


def unique_prefixes(ids: Iterable[str], minimum: int = MIN_HANDLE) -> dict[str, str]:
    """Each id → its shortest prefix of at least `minimum` characters that no other of `ids`
    starts with (the whole id when another id starts with all of it: an exact id wins)."""
    ordered = sorted(set(ids))
    handles: dict[str, str] = {}
    for i, session in enumerate(ordered):
        shared = max(
            (_common(session, ordered[j]) for j in (i - 1, i + 1) if 0 <= j < len(ordered)),
            default=0,
        )
        handles[session] = session[: max(minimum, shared + 1)]
    return handles


def session_handles(store: Any, session_ids: Iterable[str]) -> dict[str, str]:
    """The handles of `session_ids`, each unique among every session of the memory `store`."""
    import pyarrow.compute as pc

    wanted = {s for s in session_ids if s}
    if not wanted:
        return {}
    prefixes = sorted({s[:MIN_HANDLE] for s in wanted})
    # A few prefixes: read only the sessions that start with them; many: every session id.
    where = " OR ".join(map(prefix_filter, prefixes)) if len(prefixes) <= RANGES_AT_MOST else None
    found = pc.unique(store.scan(["session_id"], where=where).column("session_id")).to_pylist()
    handles = unique_prefixes([*wanted, *(s for s in found if s)])
    return {session: handles[session] for session in wanted}


def prefix_filter(prefix: str) -> str:
    """A filter for the session ids that start with `prefix`, as a range the session_id index
    can answer (`starts_with` scans every row)."""
    last = prefix[-1:]
    if not last or ord(last) >= 0x10FFFF:
        return f"starts_with(session_id, {quote_sql(prefix)})"
    upper = prefix[:-1] + chr(ord(last) + 1)
    return f"(session_id >= {quote_sql(prefix)} AND session_id < {quote_sql(upper)})"


def ambiguous(prefix: str, sessions: list[str], why: str = "") -> str:
    """The one-line error for a prefix several sessions share, naming each by its handle."""
    handles = sorted(unique_prefixes(sessions).values())
    named = ", ".join(handles[:CANDIDATES_SHOWN])
    if len(handles) > CANDIDATES_SHOWN:
        named += f" and {len(handles) - CANDIDATES_SHOWN} more"
    return f"session prefix {prefix} matches {len(handles)} sessions{why}: {named}; give one"


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n

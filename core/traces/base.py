"""The interface every agent's trace source implements.

A *unit* is one thing on disk that holds sessions: a transcript file (JSONL, JSONL.zst, JSON,
Parquet) or a database (Hermes `state.db`). Reading a unit is incremental: the source returns a
`resume` token (JSON-able) with the turns, and the next `read` of the same unit continues from it
(byte offset for append-only files, last message id for databases), carrying whatever the parser
needs to keep turn ids, seq numbers and tool names stable across reads. A source must detect a
rewritten or truncated file (the token no longer fits) and re-read it from the start: chunk ids
are derived from coordinates, so re-reading never duplicates anything.

A partial last line (the agent still writing) is not consumed: the offset stops before it.
Malformed input is skipped with a warning naming file and line, never raised.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from funes.model import Turn
from funes.traces.detect import classify, find_units
from funes.traces.sqlite import connect_readonly, unreadable_note

Resume = dict[str, Any]


@dataclass
class ReadResult:
    turns: list[Turn]
    resume: Resume  # persist and pass back to the next read of the same unit
    warnings: list[str] = field(default_factory=list)  # "path:line: what was skipped and why"
    complete: bool = True  # False when the unit was read only partly (e.g. a size cap)


def summarise_warnings(warnings: list[str], per_kind: int = 3, limit: int = 20) -> list[str]:
    """At most `limit` lines for `warnings` ("path[:line]: why"): up to `per_kind` lines of each
    kind of problem, then one line counting the rest of that kind and the files they are in, so
    one broken or binary file never hides the other kinds."""
    import re

    counted = re.compile(r"(?P<why>.*) \((?P<n>\d+) more line\(s\) like this\)")
    examples: dict[str, list[str]] = {}
    rest: Counter[str] = Counter()
    files: dict[str, set[str]] = {}
    for warning in warnings:
        where, _, why = warning.partition(": ")
        path = where.rsplit(":", 1)[0] if where.rsplit(":", 1)[-1].isdigit() else where
        summary = counted.fullmatch(why)
        if summary:  # a reader's own count of the lines it did not list
            why, extra = summary["why"], int(summary["n"])
        else:
            extra = 0
        shown = examples.setdefault(why, [])
        files.setdefault(why, set())
        if not summary and len(shown) < per_kind:
            shown.append(warning)
        else:
            rest[why] += extra or 1
            files[why].add(path)
    lines: list[str] = []
    for why, shown in examples.items():
        lines += shown
        if rest[why]:
            lines.append(f"… {rest[why]} more: {why} (in {len(files[why])} file(s))")
    if len(lines) > limit:
        lines = [*lines[: limit - 1], f"… and {len(lines) - limit + 1} more warning line(s)"]
    return lines


class TraceSource(Protocol):
    harness: str  # the stored facet: claude_code | codex | pi | hermes | parquet

    def default_roots(self) -> list[Path]:
        """Where this agent keeps transcripts on this machine (honouring its env vars)."""
        ...

    def owns(self, path: Path) -> bool:
        """True when `path` (a file) is a unit this source can read."""
        ...

    def discover(self, root: Path) -> Iterator[Path]:
        """Every unit under `root` (a folder or a single file)."""
        ...

    def select(self, found: list[Path]) -> Iterable[Path]:
        """The units to read among `found`, what one walk of a folder gave this source."""
        ...

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        """Turns added to `unit` since `resume` (all of them when None)."""
        ...


class FileSource:
    """What every source shares: it owns the files `classify` gives it, and finds its units in
    the one walk of a folder (`find_units`) that serves every source."""

    harness: str

    def owns(self, path: Path) -> bool:
        return classify(path) == self.harness

    def discover(self, root: Path) -> Iterator[Path]:
        return iter(self.select(find_units(root, [self.harness])[self.harness]))

    def select(self, found: list[Path]) -> Iterable[Path]:
        return found


def read_database(
    unit: Path, resume: Resume, read: Callable[[sqlite3.Connection], ReadResult]
) -> ReadResult:
    """`read` the agent's database `unit`, opened read-only. A database that cannot be opened or
    read is left as it is for the next run (the token stays `resume`), with one warning: busy
    while another program writes it, else what went wrong."""
    try:
        conn = connect_readonly(unit)
    except sqlite3.Error as error:
        return ReadResult([], resume, [unreadable_note(unit, error, "open")], False)
    try:
        return read(conn)
    except sqlite3.Error as error:
        return ReadResult([], resume, [unreadable_note(unit, error, "read")], False)
    finally:
        conn.close()

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

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from funes.model import Turn

Resume = dict[str, Any]


@dataclass
class ReadResult:
    turns: list[Turn]
    resume: Resume  # persist and pass back to the next read of the same unit
    warnings: list[str] = field(default_factory=list)  # "path:line: what was skipped and why"
    complete: bool = True  # False when the unit was read only partly (e.g. a size cap)


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

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        """Turns added to `unit` since `resume` (all of them when None)."""
        ...

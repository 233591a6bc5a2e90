"""Lead-ins: what came just before a tool call or a tool output, searched with it.

A tool call is announced by the reasoning or reply just before it ("let me check where the base
href is set"), and the next window of a long output continues the window before it; their own
text rarely holds the words a question about them uses. Each tool chunk therefore carries the
last LEAD_IN_CHARS characters of the chunk before it (same session, same indexing run) in the
`lead_in` column, full-text indexed beside `text`; a chunk then matches by its text or its
lead-in, whichever is better (funes.retrieve.search). Hard coding set, tuning half: hit@5 +2
questions, hit@10 and hit@50 +4 (BENCHMARKS.md, "Third round"). A tool output's first chunk
carries its own call's end instead (paired by tool-use id): calls made together are answered
one after another, so the chunk before an output may be another call's output.

A lead-in is a copy of other rows' text, so it follows them: it is redacted with them before it
is stored, scrubbed with them (funes.sync.scrub), cleared when `forget --before` removes the row
it quotes (the row before it, or an output's call: funes.project.forget), and never leaves the
machine (funes.sync.push drops the column).
A memory built before lead-ins gets them from its stored rows (funes.index.upgrade).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Any

from funes.model import Chunk

COLUMN = "lead_in"
LEAD_IN_CHARS = 300
LEAD_IN_BLOCKS = frozenset({"tool_use", "tool_result"})


# How a memory's rows sort into reading order within a session.
READING_ORDER = ("session_id", "seq", "block_idx", "split_idx")


def lead_in_for(block_type: str, previous_text: str) -> str:
    """What a chunk of `block_type` carries when `previous_text` comes just before it."""
    return previous_text[-LEAD_IN_CHARS:] if block_type in LEAD_IN_BLOCKS else ""


def attach_lead_ins(chunks: Sequence[Chunk]) -> None:
    """Give every tool chunk the end of the chunk before it in `chunks` (reading order) when
    both are of the same session; a tool output's first chunk, the end of its own call.

    Calls made together are answered one after another: the output of the second Read of three
    followed the first Read's output, and carried that file's last lines, not its own path
    (agentic benchmark, h-c073: the read of `cli.py` ranked 8th of its session for
    "cli.py import git"). An output whose call is not in this run keeps the chunk before it."""
    calls: dict[tuple[str, str], str] = {}  # (session, tool-use id) → the call's last chunk
    for previous, chunk in pairwise(chunks):
        if previous.block_type == "tool_use" and previous.tool_use_id:
            calls[(previous.session_id, previous.tool_use_id)] = previous.text
        if previous.session_id != chunk.session_id:
            continue
        call = (
            calls.get((chunk.session_id, chunk.tool_use_id))
            if chunk.block_type == "tool_result" and chunk.split_idx == 0 and chunk.tool_use_id
            else None
        )
        chunk.lead_in = lead_in_for(chunk.block_type, previous.text if call is None else call)


def successive_rows(rows: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Stored rows (READING_ORDER columns among theirs) as (row, the row after it) pairs of one
    session, in reading order."""
    rows = sorted(rows, key=lambda r: tuple(r[c] for c in READING_ORDER))
    for before, after in pairwise(rows):
        if before["session_id"] == after["session_id"]:
            yield before, after


def has_lead_ins(table: object) -> bool:
    """True when the memory's table has the column (memories built before it do not)."""
    schema = getattr(table, "schema", None)
    return schema is not None and COLUMN in schema.names

"""Places: what a recall page counts as one result.

A turn is often stored as several chunks (a long edit, a long reply), and a tool call and its
output are two turns in most agents' transcripts. Shown as separate hits they cost the reader
the same frame and the same context twice or five times (the agentic benchmark's agents read
"10 of 10 hits from one session", "a command and its output as two hits"). So a recall keeps
the best chunk of each place, where a place is one turn, or one tool unit: a call and the output
that answers it (the same tool, one seq apart). The other half of a shown tool unit travels
with it as its `partner`: the call above an output, the outcome under a call.
"""

from __future__ import annotations

from typing import Any

from funes.retrieve.filters import quote_sql
from funes.retrieve.types import Hit, Neighbour

TOOL_BLOCKS = ("tool_use", "tool_result")
# How far apart (in seqs) a call and its output may be recorded and still be one unit: Claude
# Code writes the call and its result as consecutive turns; Codex may put a reasoning record
# between them.
UNIT_SPAN = 2


def distinct_places(ranked: list[tuple[float, int]], pool: list[dict]) -> list[tuple[float, int]]:
    """`ranked` (score, pool index), best first, keeping the best chunk of each place: one per
    turn, and one per tool unit (a call and its output)."""
    turns: set[tuple[str, str]] = set()
    tools: list[tuple[str, str, str, int]] = []  # session, tool, block type, seq
    kept: list[tuple[float, int]] = []
    for score, i in ranked:
        row = pool[i]
        session = row["session_id"] or ""
        turn = (session, row["turn_uuid"] or "")
        if turn in turns:
            continue
        block = row["block_type"] or ""
        seq = int(row["seq"] or 0)
        if block in TOOL_BLOCKS:
            tool = row.get("tool_name") or ""
            if any(
                s == session and t == tool and b != block and abs(q - seq) <= UNIT_SPAN
                for s, t, b, q in tools
            ):
                continue
            tools.append((session, tool, block, seq))
        turns.add(turn)
        kept.append((score, i))
    return kept


def attach_partners(table: Any, hits: list[Hit]) -> None:
    """Give each tool hit the other half of its unit: the nearest call before an output, the
    nearest output after a call (same session and tool, within UNIT_SPAN seqs). One query."""
    wanted = [h for h in hits if h.block_type in TOOL_BLOCKS]
    if not wanted:
        return
    sessions = ", ".join(sorted({quote_sql(h.session_id) for h in wanted}))
    seqs = sorted(
        {h.seq + d for h in wanted for d in range(-UNIT_SPAN, UNIT_SPAN + 1) if h.seq + d >= 0}
    )
    where = (
        f"session_id IN ({sessions}) AND seq IN ({', '.join(map(str, seqs))}) "
        "AND block_type IN ('tool_use', 'tool_result') AND split_idx = 0"
    )
    columns = ["session_id", "turn_uuid", "seq", "role", "block_type", "tool_name", "text"]
    rows = table.search().where(where).select(columns).limit(10_000).to_list()
    for hit in wanted:
        hit.partner = _partner(hit, rows)


def _partner(hit: Hit, rows: list[dict]) -> Neighbour | None:
    other = "tool_result" if hit.block_type == "tool_use" else "tool_use"
    after = other == "tool_result"
    candidates = [
        r
        for r in rows
        if r["session_id"] == hit.session_id
        and r["block_type"] == other
        and (r["tool_name"] or "") == (hit.tool_name or "")
        and _within(hit.seq, int(r["seq"]), after)
    ]
    if not candidates:
        return None
    row = min(candidates, key=lambda r: abs(int(r["seq"]) - hit.seq))
    return Neighbour(
        turn_uuid=row["turn_uuid"] or "",
        seq=int(row["seq"]),
        role=row["role"] or "",
        block_type=row["block_type"] or "",
        text=row["text"] or "",
    )


def _within(seq: int, other: int, after: bool) -> bool:
    """Whether `other` is within UNIT_SPAN seqs after (or before) `seq`."""
    gap = other - seq if after else seq - other
    return 0 <= gap <= UNIT_SPAN

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

from collections import deque
from typing import Any

from funes.index.store import TOOL_USE_ID, with_tool_use_ids
from funes.retrieve.filters import quote_sql
from funes.retrieve.types import Hit, Neighbour

TOOL_BLOCKS = ("tool_use", "tool_result")
# How far apart (in seqs) a call and its output may be recorded and still be one unit: Claude
# Code writes the call and its result as consecutive turns; Codex may put a reasoning record
# between them.
UNIT_SPAN = 2
# How far around a tool hit its session's tool blocks are read to pair calls with outputs.
PAIRING_SPAN = 12


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
    """Give each tool hit the other half of its unit: the output of a call, the call of an
    output (by the agent's tool-use id; without one, first in, first out per tool: see
    unit_partner). One query."""
    wanted = [h for h in hits if h.block_type in TOOL_BLOCKS]
    if not wanted:
        return
    sessions = ", ".join(sorted({quote_sql(h.session_id) for h in wanted}))
    seqs = sorted(
        {
            h.seq + d
            for h in wanted
            for d in range(-PAIRING_SPAN, PAIRING_SPAN + 1)
            if h.seq + d >= 0
        }
    )
    where = (
        f"session_id IN ({sessions}) AND seq IN ({', '.join(map(str, seqs))}) "
        "AND block_type IN ('tool_use', 'tool_result') AND split_idx = 0"
    )
    columns = ["session_id", "turn_uuid", "seq", "role", "block_type", "tool_name", "block_idx"]
    columns = with_tool_use_ids(table, [*columns, "text"])
    rows = table.search().where(where).select(columns).limit(50_000).to_list()
    for hit in wanted:
        hit.partner = _partner(hit, [r for r in rows if r["session_id"] == hit.session_id])


def _partner(hit: Hit, rows: list[dict]) -> Neighbour | None:
    text = hit.text if hit.split_idx == 0 else ""
    row = unit_partner(rows, hit.turn_uuid, hit.block_type, hit.tool_name, hit.seq, text=text)
    if row is None:
        return None
    return Neighbour(
        turn_uuid=row["turn_uuid"] or "",
        seq=int(row["seq"]),
        role=row["role"] or "",
        block_type=row["block_type"] or "",
        text=row["text"] or "",
    )


def unit_partner(
    rows: list[dict],
    turn_uuid: str,
    block_type: str,
    tool_name: str | None,
    seq: int,
    *,
    block_idx: int | None = None,
    text: str = "",
) -> dict | None:
    """The other half of the tool unit whose `block_type` block is in turn `turn_uuid` (at
    `seq`), among one session's tool block rows within PAIRING_SPAN seqs of it. A call and its
    output pair by the agent's tool-use id: calls made together (five Reads at once) may
    answer in any order. Rows without one (a memory from before the column, an agent that
    records none) pair first in, first out per tool, as calls usually answer (an output whose
    call lies out of the span is left unpaired). A turn that made several calls at once names
    its block by `block_idx`, else by the start of its `text`; else its first block of that
    type is meant."""
    tool = tool_name or ""
    same = sorted(
        (
            r
            for r in rows
            if r["block_type"] in TOOL_BLOCKS
            and int(r.get("split_idx") or 0) == 0
            and (r["tool_name"] or "") == tool
            and abs(int(r["seq"]) - seq) <= PAIRING_SPAN
        ),
        key=lambda r: (int(r["seq"]), int(r["block_idx"] or 0)),
    )
    pairs = pair_by_id(same)
    waiting: deque[dict] = deque()
    for row in (r for r in same if _key(r) not in pairs and not _has_id(r, same)):
        if row["block_type"] == "tool_use":
            waiting.append(row)
        elif waiting:
            call = waiting.popleft()
            pairs[_key(call)] = row
            pairs[_key(row)] = call
    mine = [r for r in same if r["turn_uuid"] == turn_uuid and r["block_type"] == block_type]
    if block_idx is not None:
        mine = [r for r in mine if int(r["block_idx"] or 0) == block_idx] or mine
    elif text and len(mine) > 1:
        head = text[:200]
        mine = [r for r in mine if (r["text"] or "").startswith(head)] or mine
    return pairs.get(_key(mine[0])) if mine else None


def _has_id(row: dict, rows: list[dict]) -> bool:
    """`row` names a tool-use id, and so do rows of the other kind: its partner is found by
    id or not at all (never guessed by order from what is left)."""
    if not row.get(TOOL_USE_ID):
        return False
    other = "tool_result" if row["block_type"] == "tool_use" else "tool_use"
    return any(r["block_type"] == other and r.get(TOOL_USE_ID) for r in rows)


def pair_by_id(rows: list[dict]) -> dict[str, dict]:
    """Calls and outputs among `rows` that name the same tool-use id, each keyed to the other
    (by `_key`)."""
    calls = {
        r[TOOL_USE_ID]: r for r in rows if r["block_type"] == "tool_use" and r.get(TOOL_USE_ID)
    }
    pairs: dict[str, dict] = {}
    for row in rows:
        call = calls.get(row.get(TOOL_USE_ID) or "") if row["block_type"] == "tool_result" else None
        if call is not None and _key(call) not in pairs:
            pairs[_key(call)] = row
            pairs[_key(row)] = call
    return pairs


def _key(row: dict) -> str:
    return f"{row['turn_uuid']}#{row['block_idx']}#{row['block_type']}"

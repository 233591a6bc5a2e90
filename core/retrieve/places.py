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

import re
from collections import defaultdict, deque
from typing import Any

from funes.index.store import TOOL_USE_ID, with_tool_use_ids
from funes.retrieve.filters import quote_sql
from funes.retrieve.steps import is_write
from funes.retrieve.types import Hit, Neighbour

TOOL_BLOCKS = ("tool_use", "tool_result")
# How far apart (in seqs) a call and its output may be recorded and still be one unit: Claude
# Code writes the call and its result as consecutive turns; Codex may put a reasoning record
# between them.
UNIT_SPAN = 2
# How far around a tool hit its session's tool blocks are read to pair calls with outputs.
PAIRING_SPAN = 12
# Near-copies: a session's to-do list rewritten at each step (five TodoWrite snapshots took
# five of ten places), a file read again, a thinking headline said again. A place whose words
# are at least this share of an already kept place's (same session, block type and tool) is
# left out.
COPY_OVERLAP = 0.7
# Below this many distinct words, a passage is too short to call a copy ("ok", "Done.").
MIN_COPY_WORDS = 3
# A file-writing tool's calls and outputs (funes.retrieve.steps.is_write) are never copies:
# an edit retried or a file written again differs from the one before exactly where it matters
# (the hard set's "what finally got strict pyright to accept it": each try shares most words
# with the last).
_WORD = re.compile(r"\w+")


def distinct_places(
    ranked: list[tuple[float, int]], pool: list[dict], limit: int | None = None
) -> list[tuple[float, int]]:
    """`ranked` (score, pool index), best first, keeping the best chunk of each place: one per
    turn, and one per tool unit (a call and its output); and of a session's near-copies (the
    same kind of block saying nearly the same words, a file-writing tool's excepted), the best
    one only. At most `limit`."""
    turns: set[tuple[str, str]] = set()
    tools: list[tuple[str, str, str, int]] = []  # session, tool, block type, seq
    said: dict[tuple[str, str, str], list[frozenset[str]]] = defaultdict(list)
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
        # A copy's turn and unit are taken all the same: its other chunks and its tool's
        # output ("Todos have been modified successfully") are no places of their own.
        turns.add(turn)
        tool_name = row.get("tool_name") or ""
        if not is_write(tool_name):
            kind = (session, block, tool_name)
            words = _words(row["text"] or "")
            if len(words) >= MIN_COPY_WORDS and any(
                _overlap(words, other) >= COPY_OVERLAP for other in said[kind]
            ):
                continue
            said[kind].append(words)
        kept.append((score, i))
        if len(kept) == limit:
            break
    return kept


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard: shared words over all words."""
    shared = len(a & b)
    return shared / max(1, len(a) + len(b) - shared)


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
    pairs = pair_units(same)
    mine = [r for r in same if r["turn_uuid"] == turn_uuid and r["block_type"] == block_type]
    if block_idx is not None:
        mine = [r for r in mine if int(r["block_idx"] or 0) == block_idx] or mine
    elif text and len(mine) > 1:
        head = text[:200]
        mine = [r for r in mine if (r["text"] or "").startswith(head)] or mine
    return pairs.get(unit_key(mine[0])) if mine else None


def pair_units(rows: list[dict]) -> dict[str, dict]:
    """Each call and output among `rows` (tool blocks, in the session's order) keyed
    (`unit_key`) to its other half. By the agent's tool-use id where calls and outputs both
    carry one: calls made together answer in any order, and an id without its partner here is
    left unpaired, never guessed. Rows without one pair first in, first out per tool, as calls
    usually answer. `unit_partner` and the timeline both pair through this."""
    pairs: dict[str, dict] = {}
    # The call waiting under each id: the latest one made (a trimmed transcript repeats ids),
    # answered by the next output that names it.
    asked: dict[str, dict] = {}
    for row in rows:
        if not row.get(TOOL_USE_ID):
            continue
        if row["block_type"] == "tool_use":
            asked[row[TOOL_USE_ID]] = row
        elif (call := asked.pop(row[TOOL_USE_ID], None)) is not None:
            pairs[unit_key(call)] = row
            pairs[unit_key(row)] = call
    # An agent that records ids records them on both halves; one that records them on one half
    # only (or none) is paired by order.
    by_id = {r["block_type"] for r in rows if r.get(TOOL_USE_ID)} >= set(TOOL_BLOCKS)
    waiting: dict[str, deque[dict]] = defaultdict(deque)
    for row in rows:
        if unit_key(row) in pairs or (by_id and row.get(TOOL_USE_ID)):
            continue
        queue = waiting[row["tool_name"] or ""]
        if row["block_type"] == "tool_use":
            queue.append(row)
        elif queue:
            call = queue.popleft()
            pairs[unit_key(call)] = row
            pairs[unit_key(row)] = call
    return pairs


def unit_key(row: dict) -> str:
    """A tool block row's key in `pair_units`' pairs."""
    return f"{row['turn_uuid']}#{row['block_idx']}#{row['block_type']}"

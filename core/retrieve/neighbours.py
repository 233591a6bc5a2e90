"""Which neighbouring passages travel with a hit: the few that make it readable, not the whole
surroundings.

A hit is one chunk of one turn. What a reader most often needs beside it is the question that
started that piece of work (the user's prompt before it) and what the assistant concluded (its
last reply before the user spoke again); when that last reply asked the user something, the
user's answer (on LoCoMo, +3 points of answers kept at the defaults on either half). Everything
else around a hit (tool calls, tool output, every chunk of a long result) is what `funes get`
is for: attaching all chunks within a seq window made the median agent answer ~4k tokens, up
to 150 neighbour lines for one recall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from funes.retrieve.types import Hit, Neighbour

# At most this many neighbours per hit, whatever the caller asks for.
MAX_NEIGHBOURS = 2
# How far back a prompt and how far forward a conclusion are looked for, in seqs. Long turns
# (dozens of tool calls) still find their prompt; beyond this the `get` line is the way.
LOOK_BACK = 80
LOOK_AHEAD = 40


def attach_neighbours(table: Any, hits: list[Hit], limit: int) -> None:
    """Give each hit up to `limit` (≤ MAX_NEIGHBOURS) neighbours of its session, chosen for
    value: the prompt that started its turn, then the reply that concluded it, in reading
    order. One query for all hits; a neighbour never repeats a hit's own turn or text."""
    limit = min(limit, MAX_NEIGHBOURS)
    if limit <= 0 or not hits:
        return
    rows = _said_text_near(table, hits)
    shown = {" ".join(h.text.split()) for h in hits}
    for hit in hits:
        same = [r for r in rows if r["session_id"] == hit.session_id]
        picked = _pick(hit, same, limit)
        hit.neighbours = [
            Neighbour(
                turn_uuid=r["turn_uuid"],
                seq=int(r["seq"]),
                role=r["role"] or "",
                block_type=r["block_type"] or "",
                text=r["text"] or "",
            )
            for r in picked
            if " ".join((r["text"] or "").split()) not in shown
        ]


def _said_text_near(table: Any, hits: list[Hit]) -> list[dict]:
    """Text blocks said by the user or the assistant around every hit (first chunks only: a
    neighbour is shown by its opening words)."""
    columns = ["session_id", "turn_uuid", "seq", "role", "block_type", "text", "split_idx"]
    return said_text_near(table, [(h.session_id, h.seq) for h in hits], columns)


def said_text_near(
    table: Any, places: list[tuple[str, int]], columns: list[str], where: str | None = None
) -> list[dict]:
    """The first chunk of every text block said by the user or the assistant within LOOK_BACK
    before and LOOK_AHEAD after each (session, seq) place, in seq order; `where` narrows it
    further (a recall's filters)."""
    from funes.retrieve.filters import quote_sql

    spans: dict[str, tuple[int, int]] = {}
    for session_id, seq in places:
        low, high = spans.get(session_id, (seq, seq))
        spans[session_id] = (min(low, seq), max(high, seq))
    # One `session_id IN (…)` lookup (the btree answers it) and the seq windows applied here:
    # an OR of per-session seq ranges made Lance scan, 60 ms against 7 ms at 340k chunks.
    sessions = ", ".join(quote_sql(sid) for sid in sorted(spans))
    clause = f"session_id IN ({sessions}) AND block_type = 'text' AND role IN ('user', 'assistant')"
    if where:
        clause += f" AND ({where})"
    wanted = list(dict.fromkeys([*columns, "session_id", "seq", "text", "split_idx"]))
    rows = table.search().where(clause).select(wanted).limit(100_000).to_list()
    rows = [
        r
        for r in rows
        if int(r["split_idx"] or 0) == 0
        and (r["text"] or "").strip()
        and spans[r["session_id"]][0] - LOOK_BACK
        <= int(r["seq"])
        <= spans[r["session_id"]][1] + LOOK_AHEAD
    ]
    rows.sort(key=lambda r: int(r["seq"]))
    return rows


def _pick(hit: Hit, rows: list[dict], limit: int) -> list[dict]:
    """The prompt before the hit and the last assistant reply after it, before the next prompt."""
    around = Around.of(hit.seq, hit.turn_uuid, rows)
    picked: list[dict] = []
    # A tool's output is recorded as a user turn by some agents: only user *text* is a prompt.
    is_prompt = hit.role == "user" and hit.block_type == "text"
    if not is_prompt and around.prompt_before:
        picked.append(around.prompt_before)
    if around.conclusion:
        picked.append(around.conclusion)
    elif (
        around.prompt_after and hit.role == "assistant" and asks(hit.role, hit.block_type, hit.text)
    ):
        # The hit is the assistant's last word and it asked something: the user's answer (the
        # next prompt) is where the decision was made.
        picked.append(around.prompt_after)
    return sorted(picked[:limit], key=lambda r: int(r["seq"]))


@dataclass(frozen=True, slots=True)
class Around:
    """What was said around one place of a session: the user's prompt before it, the user's
    next prompt, and the assistant's last reply in between (its conclusion)."""

    prompt_before: dict | None
    prompt_after: dict | None
    conclusion: dict | None

    @classmethod
    def of(cls, seq: int, turn_uuid: str, rows: list[dict]) -> Around:
        """`rows`: one session's said text (`said_text_near`), in seq order."""
        others = [r for r in rows if r["turn_uuid"] != turn_uuid]
        prompts_before = [
            r for r in others if r["role"] == "user" and seq - LOOK_BACK <= int(r["seq"]) < seq
        ]
        prompt_after = next(
            (r for r in others if r["role"] == "user" and int(r["seq"]) > seq), None
        )
        next_prompt = int(prompt_after["seq"]) if prompt_after else seq + LOOK_AHEAD + 1
        replies_after = [
            r for r in others if r["role"] == "assistant" and seq < int(r["seq"]) < next_prompt
        ]
        return cls(
            prompt_before=prompts_before[-1] if prompts_before else None,
            prompt_after=prompt_after,
            conclusion=replies_after[-1] if replies_after else None,
        )


def asks(role: str, block_type: str, text: str) -> bool:
    """Whether a passage is something said (user or assistant text) that ends with a question."""
    return role in ("user", "assistant") and block_type == "text" and text.rstrip().endswith("?")

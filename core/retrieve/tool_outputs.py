"""A tool call's output ranks with it.

A question about what a command showed ("what did the test run print", "what did the config
file set") shares its words with the *call* (the command line, the file's path, the test's
name), while the answer sits in the call's output, whose words the question never uses. Each
tool call among the best candidates passes a share of its score to the chunk of its output that
holds most of the question's words, which is added to the pool when the searches did not find
it. Measured on ../shared/bench/coding-hard (tuning half; BENCHMARKS.md, "Hard coding
questions"): hit@5 0.27 → 0.41 there, the project's own set unchanged.
"""

from __future__ import annotations

import re
from typing import Any

from funes.retrieve.coverage import TOOL_BLOCKS, asked_starts, words, words_asked
from funes.retrieve.pool import LOOKUP_COLUMNS, best_first, lift

# How many of the best candidates may pass their score on; one lookup serves them all.
CALLS_CONSIDERED = 20
# The output's score is at least this share of its call's: just above it, since the reader
# needs the output more than the command (tuning half: 0.9 → 1.1 moved hit@5 0.29 → 0.41;
# 1.25 and up cost the project's own set 4 to 10 points of hit@1).
OUTPUT_SHARE = 1.1
# A call's output is recorded within this many seqs after it (parallel calls interleave).
OUTPUT_REACH = 4
# The output must hold at least this many of the question's content words to be lifted.
MIN_SHARED_WORDS = 1
# An output whose opening this long is the opening of something said in the pool repeats it.
OPENING_CHARS = 120
_LABEL = re.compile(r"^\[tool_result[^\]]*\]\s*")


def promote_outputs(
    table: Any, pool: list[dict], scores: list[float], where: str | None, query: str
) -> tuple[list[dict], list[float]]:
    """`pool` and `scores` with the output of each top tool call lifted. Costs one lookup when a
    tool call is among the best candidates, none else."""
    best = best_first(scores, CALLS_CONSIDERED)
    calls = [
        i
        for i in best
        if pool[i]["block_type"] == "tool_use"
        and pool[i]["session_id"]
        and pool[i]["seq"] is not None
    ]
    if not calls:
        return pool, scores
    try:
        rows = _outputs_after(table, [pool[i] for i in calls], where)
    except Exception:  # the lift refines a ranking that is already whole: never fail on it
        return pool, scores
    asked = words(query)
    said = {_opening(row["text"]) for row in pool if row["block_type"] not in TOOL_BLOCKS}
    pool, scores = list(pool), list(scores)
    index = {row["id"]: i for i, row in enumerate(pool)}
    for i in calls:
        call = pool[i]
        output = _closest(call, rows, asked)
        if output is None or _opening(_body(output["text"])) in said:
            # A subagent's report comes back as its Task call's output: it is already a
            # candidate as what the subagent said.
            continue
        lift(pool, scores, index, output, OUTPUT_SHARE * scores[i])
    return pool, scores


def _body(text: str | None) -> str:
    """A tool output's text without its `[tool_result NAME]` label."""
    return _LABEL.sub("", text or "", count=1)


def _opening(text: str | None) -> str:
    return " ".join((text or "").split())[:OPENING_CHARS]


def _outputs_after(table: Any, calls: list[dict], where: str | None) -> list[dict]:
    """Every tool-output chunk within OUTPUT_REACH seqs after any of `calls`, of their sessions
    (one `session_id IN … AND seq IN …` lookup: a superset, narrowed per call later)."""
    from funes.retrieve.filters import quote_sql

    sessions = ", ".join(sorted({quote_sql(c["session_id"]) for c in calls}))
    seqs = sorted({int(c["seq"]) + step for c in calls for step in range(1, OUTPUT_REACH + 1)})
    clause = (
        f"session_id IN ({sessions}) AND block_type = 'tool_result' "
        f"AND seq IN ({', '.join(map(str, seqs))})"
    )
    if where:
        clause += f" AND ({where})"
    return table.search().where(clause).select(LOOKUP_COLUMNS).limit(10_000).to_list()


def _closest(call: dict, rows: list[dict], asked: set[str]) -> dict | None:
    """The chunk of `call`'s output (same session and tool, the first output after it) that
    holds most of the question's words (the earliest of equals)."""

    seq = int(call["seq"])
    mine = [
        r
        for r in rows
        if r["session_id"] == call["session_id"]
        and seq < int(r["seq"]) <= seq + OUTPUT_REACH
        and (r.get("tool_name") or "") == (call.get("tool_name") or "")
    ]
    if not mine:
        return None
    first = min(int(r["seq"]) for r in mine)
    mine = [r for r in mine if int(r["seq"]) == first]
    starts = asked_starts(asked)

    def closeness(row: dict) -> tuple[int, int]:
        shared = words_asked(row["text"] or "", asked, starts) if asked else set()
        return len(shared), -int(row["split_idx"] or 0)

    best = max(mine, key=closeness)
    # An output that holds none of the question's words ("Successfully replaced text…" after an
    # edit) says nothing the call did not: lifting it cost the project's own set two answers.
    return best if closeness(best)[0] >= MIN_SHARED_WORDS else None

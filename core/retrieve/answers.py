"""A question's answer ranks with it.

A question asked in a session shares the words of a later question about the same thing, so it
outranks the turn that answered it: on LoCoMo, for about one in four questions whose answering
turn was not among the first 5 hits, it was the turn right after one of them, its question.
Each short question among the best candidates (user or assistant text ending with "?") passes a
share of its score to the turn that answered it: the assistant's conclusion for a user's
question, the user's next prompt for the assistant's. The question gives up a little, so the
answer, which the reader needs, comes first; the question still travels with it as the
answer's neighbour. On LoCoMo the answering turn is then in the first 5 for 66% of questions
instead of 60% (first 1: 40% instead of 35%).
"""

from __future__ import annotations

from typing import Any

from funes.retrieve.neighbours import Around, asks, said_text_near
from funes.retrieve.pool import LOOKUP_COLUMNS, best_first, lift

# How many of the best candidates may pass their score on; one lookup serves them all.
QUESTIONS_CONSIDERED = 10
# The answer's score is at least this share of its question's; the question keeps this share.
ANSWER_SHARE = 0.9
QUESTION_KEEPS = 0.8
# Only a passage that is mostly its question passes its score on. A long reply that ends by
# asking ("…want me to commit?") ranked for what it says; lifting the user's "yes" after it
# cost the coding questions 2.6 points of turn hit@5 (held-out), at no gain on LoCoMo.
QUESTION_CHARS = 250


def promote_answers(
    table: Any, pool: list[dict], scores: list[float], where: str | None
) -> tuple[list[dict], list[float]]:
    """`pool` and `scores` with each top question's answer lifted (added to the pool when the
    searches did not find it). Costs one lookup when a question is among the best, none else."""
    best = best_first(scores, QUESTIONS_CONSIDERED)
    questions = [i for i in best if _is_question(pool[i])]
    if not questions:
        return pool, scores
    places = [(pool[i]["session_id"], int(pool[i]["seq"])) for i in questions]
    try:
        rows = said_text_near(table, places, LOOKUP_COLUMNS, where)
    except Exception:  # the lift refines a ranking that is already whole: never fail on it
        return pool, scores
    pool, scores = list(pool), list(scores)
    index = {row["id"]: i for i, row in enumerate(pool)}
    for i in questions:
        question = pool[i]
        same = [r for r in rows if r["session_id"] == question["session_id"]]
        answer = _answer(question, same)
        if answer is None:
            continue
        lift(pool, scores, index, answer, ANSWER_SHARE * scores[i])
        scores[i] *= QUESTION_KEEPS
    return pool, scores


def _is_question(row: dict) -> bool:
    text = (row["text"] or "").strip()
    if not row["session_id"] or row["seq"] is None or len(text) > QUESTION_CHARS:
        return False
    return asks(row["role"] or "", row["block_type"] or "", text)


def _answer(question: dict, rows: list[dict]) -> dict | None:
    """The turn that answered: the assistant's conclusion to a user's question; the user's next
    prompt when the assistant asked and said nothing more."""
    around = Around.of(int(question["seq"]), question["turn_uuid"] or "", rows)
    if question["role"] == "user":
        return around.conclusion
    if around.conclusion is None:
        return around.prompt_after
    return None

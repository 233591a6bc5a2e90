"""Query-term coverage: how much of the question a passage, and its session, speak to.

BM25 scores each passage alone, so a passage that repeats one query word ("family", "tournament")
outranks the passage that answers, whose words are spread over the turns around it: "When did
James leave for Canada" is answered in the session that names James, the trip and Canada, not
in a turn of another conversation that says "Canada" twice. Counting which of the query's words
the candidates of each session hold between them (the pool is the two searches' candidates, so
this costs no extra search) and adding that share lifts the session that covers the question.

Measured on LoCoMo (tuned on the even questions, held out on the odd ones; BENCHMARKS.md): the
session's coverage, squared so that covering most of the question counts much more than covering
half, moved held-out hit@1 from 59.8% to 66.0% and hit@5 from 84.6% to 87.9%. Every query word
weighs the same: weighting rare words up (inverse frequency within the pool) lost 2–3 points,
because the words every candidate shares (a person's or a project's name) are the ones that tell
the right conversation from the others.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# A passage's lift: SESSION_COVERAGE × (share of the query words its session's candidates hold)²
# × (its score / its session's best score) ** LEAD_POWER. The last factor gives the lift to the
# passages that lead their session, not to every passage in it: the question is answered by one
# turn, and lifting a long coding session's weaker passages pushed the answering turn of another
# session down (bench/coding.py, tuning half).
SESSION_COVERAGE = 1.0
LEAD_POWER = 4.0
# A tool's input and output match query words by accident (file listings, diffs, logs), as the
# block priors in funes.retrieve.blend say; only what someone said counts towards coverage.
TOOL_BLOCKS = frozenset({"tool_use", "tool_result"})

_WORD = re.compile(r"[a-z0-9_]+")
# Question words and function words: they say how something is asked, not what about.
_STOPWORD_TEXT = """
a an the of to in on at for and or but is are was were be been being do does did done
have has had what when where which who whom whose why how that this these those it its i you
he she we they me him her us them my your his our their with from by as about into over after
before up down out off than then so if not no yes can could would should will shall may might
must just also any some all each other more most such only own same too very don now"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_SUFFIXES = ("ing", "ed", "es", "s")


def words(text: str) -> set[str]:
    """The content words of a text, lower-cased, with a crude plural/tense suffix cut, so that
    "tournaments" meets "tournament" and "fixed" meets "fixes" roughly as stemming would."""
    found = set()
    for word in set(_WORD.findall(text.lower())):
        if len(word) < 2 or word in _STOPWORDS:
            continue
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        found.add(word)
    return found


def words_asked(text: str, asked: set[str], starts: re.Pattern[str]) -> set[str]:
    """`words(text) & asked`, stemming only the words that start with an asked word (a word's
    stem is a prefix of it): the text's other words, most of them, cost one regex pass in C
    rather than a Python loop each. `starts`: `asked_starts(asked)`."""
    return words(" ".join(starts.findall(text.lower()))) & asked


def asked_starts(asked: set[str]) -> re.Pattern[str]:
    """The whole words (runs of `_WORD`'s characters) that start with one of `asked`."""
    alternatives = "|".join(sorted(map(re.escape, asked), key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9_])(?:{alternatives})[a-z0-9_]*")


def coverage_bonus(query: str, pool: list[dict], scores: np.ndarray) -> np.ndarray:
    """Per candidate in `pool` (rows with text, session_id, block_type), the lift its session's
    coverage of the query earns it, given the candidates' current `scores`."""
    import numpy as np

    asked = words(query)
    lift = np.zeros(len(pool), dtype=np.float32)
    if not asked:
        return lift
    starts = asked_starts(asked)
    covered: dict[str, set[str]] = {}
    best: dict[str, float] = {}
    for row, score in zip(pool, scores.tolist(), strict=True):
        session = row["session_id"] or ""
        best[session] = max(best.get(session, 0.0), score)
        found = covered.setdefault(session, set())
        if (row["block_type"] or "") not in TOOL_BLOCKS:
            found |= words_asked(row["text"] or "", asked, starts)
    for i, (row, score) in enumerate(zip(pool, scores.tolist(), strict=True)):
        session = row["session_id"] or ""
        share = len(covered[session]) / len(asked)
        lead = score / best[session] if best[session] > 0 else 0.0
        lift[i] = SESSION_COVERAGE * share**2 * lead**LEAD_POWER
    return lift

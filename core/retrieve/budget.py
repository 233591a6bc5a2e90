"""Keeping an agent's answer lean: long passages cut around what matched, and a whole answer
packed into a token budget (`--max-tokens`).

Tokens are counted as characters / 4 (what an agent pays, to a few percent, for English and
code); no tokenizer is loaded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A passage longer than this (characters) is shown as an excerpt around the lines that match
# the query; the `get` line prints the rest. Chunks are at most 1,200 characters, so this cuts
# only the longer half of them (tool output, long replies).
EXCERPT_CHARS = 600
CHARS_PER_TOKEN = 4
_WORD = re.compile(r"[a-z0-9_]{3,}")
_STOPWORDS = (
    "the and for are was were been this that what which who how why when where did does "
    "with from into about there their they them can could should would will not yes you "
    "our had has have its any all but use used using get got"
)
_STOP = frozenset(_STOPWORDS.split())


# Under a budget, recall fetches about one passage per this many tokens (at least the default
# k, at most 50), then packs the best of them that fit. Fetching one per 120 left a fifth of a
# 1,000-token budget unused on LoCoMo's short chat turns (and 2 points of answers with it).
TOKENS_PER_CANDIDATE = 60
MAX_BUDGET_HITS = 50


def hits_for_budget(max_tokens: int, default_k: int) -> int:
    """How many hits to fetch when the answer is packed into `max_tokens`."""
    return max(default_k, min(MAX_BUDGET_HITS, max_tokens // TOKENS_PER_CANDIDATE))


def tokens_of(text: str) -> int:
    """The token count funes budgets with: characters / 4, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def query_terms(query: str) -> list[str]:
    """The words of a query worth finding in a passage, as 5-letter stems (cheap stemming:
    `migrations` finds `migrate`)."""
    terms: list[str] = []
    for word in _WORD.findall(query.lower()):
        if word not in _STOP and word[:5] not in terms:
            terms.append(word[:5])
    return terms


@dataclass(frozen=True, slots=True)
class Excerpt:
    lines: list[str]  # the lines shown
    above: int  # lines of the passage cut before them
    below: int  # lines cut after them

    @property
    def cut(self) -> bool:
        return bool(self.above or self.below)


def excerpt(text: str, query: str, limit: int = EXCERPT_CHARS, exact: str = "") -> Excerpt:
    """`text` whole when it fits `limit` characters; else the run of lines around the line that
    matches most query words (first, one holding `exact`, the text recall was asked to find
    as it is), grown both ways while it fits. A single line longer than the limit is cut to a
    window around its first match, marked with `…`."""
    lines = text.splitlines() or [""]
    if len(text) <= limit:
        return Excerpt(lines, 0, 0)
    terms = query_terms(query)
    needle = exact.lower()
    scores = [(bool(needle) and needle in line.lower(), _matches(line, terms)) for line in lines]
    best = max(range(len(lines)), key=lambda i: (scores[i], -i))
    first = last = best
    kept = [_window(lines[best], [needle] if scores[best][0] else terms, limit)]
    size = len(kept[0])
    grew = True
    while grew:
        grew = False
        # Prefer what follows (an answer usually comes after its question), then what precedes.
        for step in (1, -1):
            i = last + 1 if step == 1 else first - 1
            if 0 <= i < len(lines) and size + len(lines[i]) + 1 <= limit:
                if step == 1:
                    kept.append(lines[i])
                    last = i
                else:
                    kept.insert(0, lines[i])
                    first = i
                size += len(lines[i]) + 1
                grew = True
    return Excerpt(kept, first, len(lines) - 1 - last)


def around(text: str, needle: str, limit: int) -> str:
    """`text` on one line, cut to about `limit` characters around the first place it holds
    `needle` (case-insensitive), each cut side marked `…`."""
    return _window(" ".join(text.split()), [needle.lower()], limit)


def _matches(line: str, terms: list[str]) -> int:
    lower = line.lower()
    return sum(1 for term in terms if term in lower)


def _window(line: str, terms: list[str], limit: int) -> str:
    """`line` itself when it fits, else about `limit` characters around its first matching
    term, cut at word boundaries and marked `…` on each side that was cut."""
    if len(line) <= limit:
        return line
    lower = line.lower()
    hits = [lower.find(t) for t in terms if t in lower]
    at = min(hits) if hits else 0
    start = max(0, at - limit // 3)
    end = min(len(line), start + limit - 2)
    start = max(0, end - (limit - 2))
    if start > 0:
        start = word_start(line, start)
    if end < len(line):
        end = word_end(line, start, end)
    # A cut that lands on a space leaves no blank between the text and its `…`.
    shown = line[start:end]
    shown = shown.lstrip() if start > 0 else shown
    shown = shown.rstrip() if end < len(line) else shown
    return ("…" if start > 0 else "") + shown + ("…" if end < len(line) else "")


# A cut moves back (or on) to a space only this far: past it, the cut is inside a long token
# (a hash, a URL, base64) that has no word boundary worth looking for.
WORD_SLACK = 40


def word_start(text: str, at: int) -> int:
    """Where a passage cut at `at` may begin without splitting a word: `at` itself when a word
    starts there, else just after the next space (within WORD_SLACK characters)."""
    if at <= 0 or text[at - 1].isspace() or text[at].isspace():
        return at
    space = next((i for i in range(at, min(len(text), at + WORD_SLACK)) if text[i].isspace()), -1)
    return space + 1 if space >= 0 else at


def word_end(text: str, start: int, at: int) -> int:
    """Where a passage cut at `at` may end without splitting a word: `at` itself when a word
    ends there, else at the last space before it (within WORD_SLACK characters, after
    `start`)."""
    if at >= len(text) or text[at].isspace() or text[at - 1].isspace():
        return at
    space = text.rfind(" ", max(start + 1, at - WORD_SLACK), at)
    return space if space > start else at


def clip_words(text: str, limit: int) -> str:
    """`text` when it fits `limit` characters, else its start cut at a word boundary and
    marked `…` (at most `limit` characters with the mark)."""
    if len(text) <= limit:
        return text
    return text[: word_end(text, 0, limit - 1)].rstrip() + "…"


def trim_partial_word(text: str) -> str:
    """A passage that begins inside a word (a later split of a long block starts in the
    overlap it shares with the one before) without that partial word, marked `…`."""
    space = next((i for i in range(min(len(text), WORD_SLACK)) if text[i].isspace()), -1)
    return "…" + (text[space:].lstrip() if space >= 0 else text)

"""Weak results said plainly: a recall whose best passages hold few of the question's words.

Ranking always returns its best `k`, so a question the memory cannot answer still gets ten
confident-looking passages. Scores cannot tell (they are comparable within one list only, and
change whenever ranking is re-weighted), so the signal here reads the passages themselves: the
largest share of the question's key words (recall's 5-letter stems) that the best passages of
one session hold between them, with their neighbours (the prompt that asked, the reply that
concluded). A real answer holds most of them where they meet; a nonsense query, or a question
about something the memory never saw, matches a word here and there.

Calibrated with bench/weak_results.py on the coding question sets (answerable vs. `none`) and on
LoCoMo (answerable vs. adversarial); the numbers are in BENCHMARKS.md.
"""

from __future__ import annotations

from funes.retrieve.budget import query_terms
from funes.retrieve.types import Hit

# Below this share of the question's key words in every session's best passages, the results
# are called weak. The one threshold; bench/weak_results.py sweeps it.
WEAK_COVERAGE = 0.5
# How many of the best passages are read (recall's default k).
WEAK_TOP_HITS = 6
# A question with fewer key words than this is too short to judge by its words.
WEAK_MIN_TERMS = 2


def best_coverage(query: str, hits: list[Hit], top: int = WEAK_TOP_HITS) -> tuple[int, int]:
    """(most key words of `query` the best `top` hits of one session hold between them, with
    their neighbours; key words in `query`)."""
    terms = query_terms(query)
    by_session: dict[str, list[str]] = {}
    for hit in hits[:top]:
        texts = by_session.setdefault(hit.session_id, [])
        texts += [hit.text.lower(), *(n.text.lower() for n in hit.neighbours)]
    best = 0
    for texts in by_session.values():
        best = max(best, sum(1 for term in terms if any(term in text for text in texts)))
    return best, len(terms)


def weak_note(query: str, hits: list[Hit]) -> str | None:
    """One line saying the results are weak, or None when a session's passages match well
    enough (or nothing matched at all: `no results` says that)."""
    if not hits:
        return None
    matched, total = best_coverage(query, hits)
    if total < WEAK_MIN_TERMS or matched >= WEAK_COVERAGE * total:
        return None
    return (
        f"weak results: no session shown holds more than {matched} of the question's {total} "
        "key words; the memory may not have the answer"
    )

"""Score fusion: a convex blend of normalised scores, measured to beat rank fusion here.

Reciprocal rank fusion of the full-text and static-vector rankings scored below full-text search
alone on LoCoMo (52.6% vs 57.0% hit@1): the static vectors are weak and RRF gives their ranking
equal say. A blend of scores lets the full-text score lead, the static cosine break ties, and the
second-pass score (when one ran) lift passages that say the same thing in other words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class Weights:
    fulltext: float  # × full-text score / best full-text score in the pool
    vector: float  # × static-model cosine
    second: float  # × second-pass score (cosine, or cross-encoder probability)


# Tuned on half of the LoCoMo questions, checked on the other half (see AGENTS.md).
FIRST_PASS = Weights(fulltext=1.0, vector=0.35, second=0.0)
WITH_MINILM = Weights(fulltext=1.0, vector=0.1, second=1.0)
# No cross-encoder can be had offline here, so this weight is unmeasured: blended like MiniLM,
# because published work saw ms-marco cross-encoders alone lower LoCoMo hit@1.
WITH_CROSS_ENCODER = Weights(fulltext=1.0, vector=0.1, second=1.0)
# A passage whose session holds other strong candidates is likelier the right place: add this
# share of the mean of the two best other scores from its session (+3 points hit@1 on LoCoMo).
SESSION_SUPPORT = 0.3

# What kind of block a passage is says how likely it is to *answer*: a question about past work
# is answered by what someone said (the prompt, the reply, the reasoning), rarely by a tool's
# raw output, which matches many query words by accident (file listings, diffs, logs) and
# crowded the top of the list. Multipliers on the blended score, tuned on the tuning half of
# bench/coding_questions.jsonl (first pass: turn hit@1 0.35 → 0.49, hit@5 0.72 → 0.80; held-out
# half 0.39 → 0.53, 0.73 → 0.86). Chat (LoCoMo) holds text blocks only, so it is untouched.
BLOCK_PRIORS = {"tool_result": 0.7, "tool_use": 0.8, "thinking": 0.9}


def normalise_fulltext(scores: np.ndarray) -> np.ndarray:
    """BM25 scores have no fixed scale: divide by the best in the pool (missing = 0)."""
    import numpy as np

    best = float(scores.max()) if scores.size else 0.0
    return scores / best if best > 0 else np.zeros_like(scores)


def blend(
    weights: Weights,
    fulltext: np.ndarray,
    vector: np.ndarray,
    second: np.ndarray | None = None,
) -> np.ndarray:
    score = weights.fulltext * normalise_fulltext(fulltext) + weights.vector * vector
    if second is not None:
        score = score + weights.second * second
    return score


def block_priors(block_types: list[str]) -> np.ndarray:
    """One multiplier per passage from its block type (1.0 for text and anything unknown)."""
    import numpy as np

    return np.array([BLOCK_PRIORS.get(kind, 1.0) for kind in block_types], dtype=np.float32)


def session_support(
    scores: np.ndarray, sessions: list[str], share: float = SESSION_SUPPORT
) -> np.ndarray:
    """`scores` plus `share` × the mean of the two best *other* scores of the same session."""
    import numpy as np

    by_session: dict[str, list[float]] = {}
    for score, session in zip(scores.tolist(), sessions, strict=True):
        by_session.setdefault(session, []).append(score)
    for values in by_session.values():
        values.sort(reverse=True)
    bonus = np.zeros_like(scores)
    for i, (score, session) in enumerate(zip(scores.tolist(), sessions, strict=True)):
        others = list(by_session[session])
        others.remove(score)
        bonus[i] = sum(others[:2]) / 2.0
    return scores + share * bonus

"""The candidate pool's shared moves: its best rows, and a row lifted to a share of another's
score (the rules that pass a score on: `answers`, `tool_outputs`)."""

from __future__ import annotations

from funes.retrieve.search import CANDIDATE_COLUMNS

# What a lookup that adds rows to the pool reads: everything but the vectors (fetching them
# made such lookups 25 times slower; a lifted row is ranked by the score it is given).
LOOKUP_COLUMNS = [c for c in CANDIDATE_COLUMNS if c != "vector"]


def best_first(scores: list[float], limit: int) -> list[int]:
    """Indices of the `limit` best scores, best first."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])[:limit]


def lift(
    pool: list[dict], scores: list[float], index: dict[str, int], row: dict, score: float
) -> None:
    """Give `row` at least `score`: raised in place when it is in the pool, appended (and
    indexed by id) when the searches did not find it."""
    j = index.get(row["id"])
    if j is None:
        index[row["id"]] = len(pool)
        pool.append(row)
        scores.append(score)
    else:
        scores[j] = max(scores[j], score)

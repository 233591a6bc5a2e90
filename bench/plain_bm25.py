"""Plain Okapi BM25 over pre-tokenized documents: the baseline the benchmarks score beside funes."""

from __future__ import annotations

import math
from collections import Counter, defaultdict


class BM25:
    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.lengths = [len(d) for d in docs]
        self.avg = sum(self.lengths) / max(1, len(docs))
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, count in Counter(doc).items():
                self.postings[term].append((i, count))
        n = len(docs)
        self.idf = {
            t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()
        }

    def top(self, query: list[str], k: int, stop: frozenset[str] = frozenset()) -> list[int]:
        """Indexes of the `k` best documents for `query` (terms in `stop` ignored)."""
        scores: dict[int, float] = defaultdict(float)
        for term in set(query) - stop:
            for i, count in self.postings.get(term, []):
                norm = count + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] += self.idf[term] * count * (self.k1 + 1) / norm
        return [i for i, _ in sorted(scores.items(), key=lambda p: (-p[1], p[0]))[:k]]

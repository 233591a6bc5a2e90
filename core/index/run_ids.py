"""The chunk ids one indexing run has appended, for its "stored already?" check.

Lance has no index over the rows a run writes until the run ends (the btree on `id` is built or
folded in by maintenance), so asking the table about them scans every row written so far: a
cost per transcript that grows with the run, quadratic over a first index of a long history.
The run remembers its own ids instead, as 64-bit hashes in a sorted array (8 bytes an id: a set
of a million id strings would hold over 100 MB). A hash match is confirmed against the table,
so a collision can never drop a chunk.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

# Hashes are gathered in a set and merged into the sorted array this many at a time.
MERGE_EVERY = 1 << 16


class RunIds:
    def __init__(self) -> None:
        self._sorted = np.empty(0, dtype=np.int64)
        self._recent: set[int] = set()

    def add(self, ids: Iterable[str]) -> None:
        self._recent.update(map(hash, ids))
        if len(self._recent) >= MERGE_EVERY:
            recent = np.fromiter(self._recent, dtype=np.int64, count=len(self._recent))
            self._sorted = np.union1d(self._sorted, recent)
            self._recent.clear()

    def candidates(self, ids: Sequence[str]) -> list[str]:
        """The ids of `ids` this run may have appended already (confirm them with the table)."""
        if not ids:
            return []
        hashes = np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))
        in_sorted = np.zeros(len(ids), dtype=bool)
        if len(self._sorted):
            at = np.minimum(np.searchsorted(self._sorted, hashes), len(self._sorted) - 1)
            in_sorted = self._sorted[at] == hashes
        recent = self._recent
        return [
            chunk_id
            for chunk_id, value, seen in zip(ids, hashes.tolist(), in_sorted.tolist(), strict=True)
            if seen or value in recent
        ]

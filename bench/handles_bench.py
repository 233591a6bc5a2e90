"""What naming sessions by handles (funes.retrieve.handles) costs: the lookup recall runs for its
hits and `funes sessions` for the sessions it lists, on a 340k-row table of session ids (3,400
sessions) with the session_id btree the indexer builds, by prefix ranges and by a full scan.

    .venv/bin/python bench/handles_bench.py
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
import uuid
from typing import Any

import lancedb
import pyarrow as pa
from lancedb.index import BTree

import funes.retrieve.handles as handles


class Store:
    """The two ChunkStore methods the lookup uses, over a bare table."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def count(self, where: str | None = None) -> int:
        return int(self.table.count_rows(where)) if where else int(self.table.count_rows())

    def scan(self, columns: list[str], where: str | None = None) -> pa.Table:
        query = self.table.search()
        if where:
            query = query.where(where)
        return query.select(columns).limit(max(self.count(where), 1)).to_arrow()


def main() -> None:
    random.seed(1)
    sessions = [str(uuid.uuid4()) for _ in range(3400)]
    rows = [sessions[i % len(sessions)] for i in range(340_000)]
    db = lancedb.connect(tempfile.mkdtemp())
    table = db.create_table("c", pa.table({"session_id": rows, "seq": list(range(len(rows)))}))
    table.create_index("session_id", config=BTree())
    store = Store(table)
    for ranges_at_most, how in ((handles.RANGES_AT_MOST, "ranges"), (0, "full scan")):
        handles.RANGES_AT_MOST = ranges_at_most
        for n in (6, 20, 50):
            times = []
            for _ in range(7):
                pick = random.sample(sessions, n)
                start = time.perf_counter()
                handles.session_handles(store, pick)
                times.append((time.perf_counter() - start) * 1000)
            print(f"{how}: {n} sessions: p50 {statistics.median(times):.1f} ms")


if __name__ == "__main__":
    main()

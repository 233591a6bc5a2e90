"""Bring a memory built by an older funes up to what recall now searches, from its own rows.

A memory outlives its transcripts (agents delete old ones), so nothing here reads a transcript:
what a newer index needs is derived from the stored rows, in place, under the writer lock the
indexer already holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funes.index.lead_in import COLUMN, READING_ORDER, has_lead_ins, lead_in_for, successive_rows
from funes.index.store import TOOL_USE_ID, sql_quote

# Sessions whose rows are read (with their text) and written back at once by `backfill_lead_ins`.
BACKFILL_SESSIONS = 200


def backfill_lead_ins(table: Any, progress: Callable[[int, int], None] | None = None) -> int:
    """Give a memory built before lead-ins its `lead_in` column, filled from the stored rows
    (its transcripts may be gone: nothing is read again). Returns the lead-ins written."""
    import pyarrow as pa

    if has_lead_ins(table) or table.count_rows() == 0:
        return 0
    table.add_columns(pa.field(COLUMN, pa.string()))  # metadata only: every row null
    total = table.count_rows()
    stored = table.search().select(["session_id"]).limit(total).to_arrow()
    sessions = sorted({s for s in stored.column("session_id").to_pylist() if s is not None})
    columns = ["id", *READING_ORDER, "block_type", "text"]
    ids: list[str] = []
    values: list[str] = []
    for start in range(0, len(sessions), BACKFILL_SESSIONS):
        batch = sessions[start : start + BACKFILL_SESSIONS]
        where = "session_id IN (" + ", ".join(sql_quote(s) for s in batch) + ")"
        rows = table.search().where(where).select(columns).limit(total).to_list()
        for before, row in successive_rows(rows):
            lead_in = lead_in_for(row["block_type"], before["text"] or "")
            if lead_in:
                ids.append(row["id"])
                values.append(lead_in)
        if progress is not None:
            progress(min(start + BACKFILL_SESSIONS, len(sessions)), len(sessions))
    if ids:  # one commit: a merge per batch rescanned the table each time (1.2 GB at 340k)
        update = pa.table({"id": ids, COLUMN: pa.array(values, pa.string())})
        table.merge_insert("id").when_matched_update_all().execute(update)
    return len(ids)


def add_tool_use_ids(table: Any) -> bool:
    """Give a memory built before tool-use ids the column (empty for its stored rows: their
    calls and outputs still pair first in, first out), so new turns carry theirs. True when
    it was added."""
    import pyarrow as pa

    if TOOL_USE_ID in table.schema.names:
        return False
    table.add_columns(pa.field(TOOL_USE_ID, pa.string()))  # metadata only: every row null
    return True

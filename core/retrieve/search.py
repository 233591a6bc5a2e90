"""The two first-pass searches over one memory, each prefiltered, each allowed to fail alone."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from funes.index.lead_in import COLUMN as LEAD_IN
from funes.index.lead_in import has_lead_ins
from funes.model import Provenance

# What a candidate carries: provenance for the output, text for the second pass, the static
# vector so that full-text hits get a vector score too.
CANDIDATE_COLUMNS = ["id", "text", *(f.name for f in fields(Provenance)), "split_idx", "vector"]


def open_store(memory: str | None) -> tuple[Any, str, list[str]]:
    """(ChunkStore, label, notes) for a memory spec; raises MemoryNotFound when there is none."""
    from funes.sync.memory import open_memory

    opened = open_memory(memory)
    return opened.store, opened.label, list(opened.notes)


# With an ANN index (large memories, see funes.index.maintenance): how many IVF partitions a
# query visits, and how many times `limit` candidates are re-ranked by their exact vectors.
# Measured on the 340k-chunk day-zero memory: recall@50 against exact search 0.993 (32 probes:
# 0.987), 22 ms a search against 107 ms exact.
ANN_NPROBES = 40
ANN_REFINE_FACTOR = 16


def vector_leg(
    table: Any, query_vector: Any, where: str | None, limit: int, *, exact: bool = False
) -> list[dict]:
    search = table.search(query_vector, vector_column_name="vector").distance_type("cosine")
    if exact:
        search = search.bypass_vector_index()
    else:
        search = search.nprobes(ANN_NPROBES).refine_factor(ANN_REFINE_FACTOR)
    if where:
        search = search.where(where, prefilter=True)
    return candidate_rows(search.select(CANDIDATE_COLUMNS).limit(limit).to_arrow())


def fulltext_leg(table: Any, query: str, where: str | None, limit: int) -> list[dict]:
    from lancedb.query import MatchQuery, MultiMatchQuery

    # A match query, not a parsed query string: quotes, colons or a stray `AND` in what the
    # user typed are words to find, not syntax.
    # lancedb declares MatchQuery's options with positional `pydantic.Field(default, ...)`,
    # which mypy's dataclass_transform does not read as defaults.
    match: Any = MatchQuery(query, "text")  # type: ignore[call-arg]
    if _lead_ins_indexed(table):
        # Scored by the better of a chunk's text and its lead-in (a multi-match takes the best
        # column; a sum lost tuning questions, BENCHMARKS.md "Third round").
        match = MultiMatchQuery(query, ["text", LEAD_IN])  # type: ignore[call-arg]
    search = table.search(match, query_type="fts")
    if where:
        search = search.where(where, prefilter=True)
    return candidate_rows(search.select(CANDIDATE_COLUMNS).limit(limit).to_arrow())


def candidate_rows(found: Any) -> list[dict]:
    """A search's rows as dicts, each `vector` a float32 numpy row. As Python lists, 256 floats
    a row, the vectors cost more to convert than the search itself did (~10 ms a leg, holding
    the GIL: the resident service's other calls waited on it)."""
    if "vector" not in found.column_names:
        return found.to_pylist()
    column = found.column("vector").combine_chunks()
    if column.null_count or len(column) == 0:
        return found.to_pylist()
    matrix = column.flatten().to_numpy(zero_copy_only=False).reshape(len(column), -1)
    rows = found.drop_columns(["vector"]).to_pylist()
    for row, vector in zip(rows, matrix, strict=True):
        row["vector"] = vector
    return rows


def _lead_ins_indexed(table: Any) -> bool:
    """True when the memory has lead-ins and their full-text index (built with the text's)."""
    if not has_lead_ins(table):
        return False
    try:
        return any(LEAD_IN in index.columns for index in table.list_indices())
    except Exception:  # an index listing that fails leaves the text search as it was
        return False

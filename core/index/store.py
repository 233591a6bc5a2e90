"""ChunkStore: the Lance dataset that holds a memory (storage mechanics only).

A memory is a LanceDB database folder with one table, `chunks`. The embedding model's id,
content hash and width are stamped into the table's schema metadata when it is created; a
memory is never opened with another model, because its vectors would be meaningless.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from funes.index.maintenance import crash_point
from funes.model import Chunk

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

TABLE = "chunks"
META_MODEL_ID = b"funes.embedding_model"
META_MODEL_HASH = b"funes.embedding_model_hash"
META_DIM = b"funes.embedding_dim"
META_FORMAT = b"funes.format"
FORMAT_VERSION = b"1"

# Column order is part of the on-disk contract (remote readers depend on it).
STRING_COLUMNS = (
    "id",
    "text",
    "session_id",
    "turn_uuid",
    "parent_uuid",
    "ts",
    "role",
    "block_type",
    "tool_name",
    "harness",
    "workdir",
    "repo",
    "source_path",
)
INT_COLUMNS = ("seq", "block_idx", "split_idx")
# The agent's id of a tool call, on the call and on its output. Memories built before it lack
# the column (their rows pair first in, first out); shards never carry it (funes.sync.push).
TOOL_USE_ID = "tool_use_id"


def with_tool_use_ids(table: object, columns: list[str]) -> list[str]:
    """`columns`, plus the tool-use id where the memory's table has that column."""
    schema = getattr(table, "schema", None)
    has = schema is not None and TOOL_USE_ID in schema.names
    return [*columns, TOOL_USE_ID] if has else columns


class MemoryNotFound(Exception):
    """No memory exists at the path."""


class MemoryUnavailable(Exception):
    """The memory asked for cannot be read here; the message is one line saying what to do.
    Never answered from another memory instead: asking for one memory and getting another is
    wrong."""


@dataclass
class OpenedMemory:
    store: Any  # a ChunkStore
    label: str  # how the memory is named in output and in `get` hints
    notes: list[str] = field(default_factory=list)  # e.g. "remote unreachable, using cache"
    remote: str | None = None  # the hf:// URI when the memory is remote


class ModelMismatch(Exception):
    """The memory was built with another embedding model than the one asked for."""


def chunks_schema(dim: int, model_id: str, model_hash: str) -> pa.Schema:
    import pyarrow as pa

    fields = [
        pa.field("id", pa.string(), nullable=False),
        pa.field("text", pa.string()),
        pa.field("session_id", pa.string()),
        pa.field("turn_uuid", pa.string()),
        pa.field("parent_uuid", pa.string()),
        pa.field("seq", pa.int64()),
        pa.field("ts", pa.string()),
        pa.field("role", pa.string()),
        pa.field("block_type", pa.string()),
        pa.field("tool_name", pa.string()),
        pa.field("harness", pa.string()),
        pa.field("workdir", pa.string()),
        pa.field("repo", pa.string()),
        pa.field("source_path", pa.string()),
        pa.field("block_idx", pa.int64()),
        pa.field("split_idx", pa.int64()),
        pa.field("lead_in", pa.string()),
        pa.field(TOOL_USE_ID, pa.string()),
        # Half precision: unit vectors lose nothing that ranking can see, and it halves the
        # largest column on disk and over the wire.
        pa.field("vector", pa.list_(pa.float16(), dim)),
    ]
    metadata = {
        META_MODEL_ID: model_id.encode(),
        META_MODEL_HASH: model_hash.encode(),
        META_DIM: str(dim).encode(),
        META_FORMAT: FORMAT_VERSION,
    }
    return pa.schema(fields, metadata=metadata)


def chunks_to_arrow(chunks: Sequence[Chunk], vectors: np.ndarray, schema: pa.Schema) -> pa.Table:
    import numpy as np
    import pyarrow as pa

    columns: dict[str, Any] = {}
    for name in schema.names:
        if name == "vector":
            continue
        columns[name] = [getattr(c, name) for c in chunks]
    dim = schema.field("vector").type.list_size
    item_type = schema.field("vector").type.value_type
    flat = np.ascontiguousarray(vectors, dtype=item_type.to_pandas_dtype()).reshape(-1)
    columns["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(flat, item_type), dim)
    arrays = [
        columns[name] if name == "vector" else pa.array(columns[name], schema.field(name).type)
        for name in schema.names
    ]
    return pa.Table.from_arrays(arrays, schema=schema)


# What converting a row that holds a value of the wrong type (or text UTF-8 cannot encode)
# raises; pyarrow's own errors derive from these.
_CONVERSION_ERRORS = (TypeError, ValueError, OverflowError, UnicodeError)


def _storable_rows(
    chunks: Sequence[Chunk], vectors: np.ndarray, schema: pa.Schema
) -> tuple[list[int], list[str]]:
    """Which rows convert on their own (their indices), and a line naming each that does not."""
    keep: list[int] = []
    refused: list[str] = []
    for i, chunk in enumerate(chunks):
        try:
            chunks_to_arrow([chunk], vectors[i : i + 1], schema)
        except _CONVERSION_ERRORS as error:
            why = str(error).splitlines()[0][:120] if str(error) else ""
            refused.append(
                f"{chunk.source_path}: session {chunk.session_id!r} turn {chunk.turn_uuid!r} "
                f"cannot be stored ({type(error).__name__}: {why}); skipped"
            )
        else:
            keep.append(i)
    return keep, refused


def memory_exists(path: Path) -> bool:
    """True when `path` holds a committed memory (a table with at least one version)."""
    versions = path / f"{TABLE}.lance" / "_versions"
    try:
        return any(name.endswith(".manifest") for name in os.listdir(versions))
    except OSError:
        return False


def discard_failed_creation(path: Path) -> None:
    """Remove what a run killed while creating the table left behind: a table folder with no
    committed version holds nothing (older releases created in place and could leave one)."""
    table = path / f"{TABLE}.lance"
    if table.is_dir() and not memory_exists(path):
        shutil.rmtree(table, ignore_errors=True)
    for leftover in path.glob(".creating-*") if path.is_dir() else []:
        shutil.rmtree(leftover, ignore_errors=True)


class ChunkStore:
    def __init__(self, path: Path, db: Any, table: Any) -> None:
        self.path = path
        self.db = db
        self.table = table
        metadata = table.schema.metadata or {}
        self.model_id = metadata.get(META_MODEL_ID, b"").decode()
        self.model_hash = metadata.get(META_MODEL_HASH, b"").decode()
        self.dim = table.schema.field("vector").type.list_size

    @classmethod
    def open(cls, path: Path | None = None, *, embedder: Any | None = None) -> ChunkStore:
        """Open an existing memory; with `embedder`, refuse if it was built with another model."""
        from funes.paths import local_memory_dir

        path = Path(path) if path is not None else local_memory_dir()
        if not memory_exists(path):
            raise MemoryNotFound(f"no memory at {path} — run `funes index` or `funes add <agent>`")
        from funes.lance import import_lancedb

        lancedb = import_lancedb()
        db = lancedb.connect(str(path))
        store = cls(path, db, db.open_table(TABLE))
        if embedder is not None:
            store.check_model(embedder)
        return store

    @classmethod
    def create_or_open(cls, path: Path | None, embedder: Any) -> ChunkStore:
        from funes.paths import local_memory_dir

        path = Path(path) if path is not None else local_memory_dir()
        if memory_exists(path):
            return cls.open(path, embedder=embedder)
        from funes.lance import import_lancedb

        lancedb = import_lancedb()
        path.mkdir(parents=True, exist_ok=True)
        discard_failed_creation(path)
        # Created beside the memory and moved into place in one rename: a run killed while
        # Lance writes the first version leaves only a `.creating-*` folder, never a table
        # folder without a version (which every later open would fail on).
        staging = path / f".creating-{os.getpid()}"
        schema = chunks_schema(embedder.dim, embedder.model_id, embedder.content_hash)
        lancedb.connect(str(staging)).create_table(TABLE, schema=schema, exist_ok=True)
        crash_point("after create table")
        os.rename(staging / f"{TABLE}.lance", path / f"{TABLE}.lance")
        shutil.rmtree(staging, ignore_errors=True)
        db = lancedb.connect(str(path))
        return cls(path, db, db.open_table(TABLE))

    def snapshot(self) -> ChunkStore:
        """This memory as it is now, read-only: later writes are not seen through it."""
        table = self.db.open_table(TABLE)
        table.checkout(self.table.version)
        return ChunkStore(self.path, self.db, table)

    def check_model(self, embedder: Any) -> None:
        if self.model_id and (
            self.model_id != embedder.model_id
            or (self.model_hash and self.model_hash != embedder.content_hash)
            or self.dim != embedder.dim
        ):
            raise ModelMismatch(
                f"the memory at {self.path} was built with embedding model {self.model_id} "
                f"({self.model_hash[:12]}), not {embedder.model_id} "
                f"({embedder.content_hash[:12]}); "
                f"rebuild it: move {self.path} aside, then run `funes index --all`"
            )

    # -- writes -----------------------------------------------------------------------------

    def add(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> int:
        if not chunks:
            return 0
        self.table.add(chunks_to_arrow(chunks, vectors, self.table.schema))
        crash_point("after append")
        return len(chunks)

    def add_storable(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> list[str]:
        """Append the rows Arrow can hold; return one line naming each row it cannot (its
        transcript, session and turn, and why), so one bad value costs its own row and never the
        others of its batch. A write that fails (a full disk) still raises."""
        if not chunks:
            return []
        try:
            table = chunks_to_arrow(chunks, vectors, self.table.schema)
            refused: list[str] = []
        except _CONVERSION_ERRORS:
            keep, refused = _storable_rows(chunks, vectors, self.table.schema)
            if not keep:
                return refused
            table = chunks_to_arrow([chunks[i] for i in keep], vectors[keep], self.table.schema)
        self.table.add(table)
        crash_point("after append")
        return refused

    def delete_ids(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            self.table.delete("id IN (" + ", ".join(sql_quote(i) for i in batch) + ")")

    def ensure_indexes(self, *, full: bool = True) -> list[str]:
        """Build missing indexes; with `full`, also fold every appended row into them (a copy
        or a scrub wants that); without, only the maintenance that is due. Returns what ran."""
        from funes.index.maintenance import maintain

        return maintain(self, full=full)

    def has_fts_index(self) -> bool:
        try:
            return any("text" in idx.columns for idx in self.table.list_indices())
        except Exception:
            return False

    # -- reads ------------------------------------------------------------------------------

    def count(self, where: str | None = None) -> int:
        return int(self.table.count_rows(where)) if where else int(self.table.count_rows())

    def known_ids(self, ids: Iterable[str]) -> set[str]:
        ids = list(dict.fromkeys(ids))
        found: set[str] = set()
        for start in range(0, len(ids), 1000):
            batch = ids[start : start + 1000]
            where = "id IN (" + ", ".join(sql_quote(i) for i in batch) + ")"
            rows = self.table.search().where(where).select(["id"]).limit(len(batch)).to_arrow()
            found.update(rows.column("id").to_pylist())
        return found

    def scan(self, columns: list[str], where: str | None = None) -> pa.Table:
        """All rows (optionally filtered), projected to `columns`."""
        query = self.table.search()
        if where:
            query = query.where(where)
        # No limit: every matching row, in one query (counting them first cost a second pass
        # over the same rows, and a recall makes several scans).
        return query.select(columns).limit(None).to_arrow()


def sql_quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"

"""Second-pass vectors computed ahead of time, so a recall only embeds its query.

A LanceDB table per model under `$FUNES_HOME/second-pass/`, keyed by a hash of the chunk text
(not the chunk id): identical passages share a vector, a scrubbed chunk whose text changed
simply misses (and is recomputed), and remote memories benefit from it too. It is local state,
never pushed, and rebuilding it only costs time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from funes.paths import funes_home

if TYPE_CHECKING:
    import numpy as np

META_MODEL_ID = b"funes.second_pass_model"


def cache_dir() -> Path:
    return funes_home() / "second-pass"


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def _table_name(model_id: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in model_id).strip("_").lower()


class VectorCache:
    def __init__(self, table: Any, model_id: str, dim: int) -> None:
        self.table = table
        self.model_id = model_id
        self.dim = dim

    @classmethod
    def open(cls, model_id: str, dim: int, *, create: bool) -> VectorCache | None:
        """The cache for `model_id`; None when it does not exist and `create` is False."""
        folder = cache_dir()
        name = _table_name(model_id)
        if not create and not (folder / f"{name}.lance").is_dir():
            return None
        from funes.lance import import_lancedb

        lancedb = import_lancedb()
        import pyarrow as pa

        folder.mkdir(parents=True, exist_ok=True)
        db = lancedb.connect(str(folder))
        schema = pa.schema(
            [
                pa.field("key", pa.string(), nullable=False),
                pa.field("vector", pa.list_(pa.float16(), dim)),
            ],
            metadata={META_MODEL_ID: model_id.encode()},
        )
        try:
            table = db.create_table(name, schema=schema, exist_ok=True)
        except ValueError:
            # A cache written in an older layout: it only saves work, so start it afresh.
            table = db.create_table(name, schema=schema, mode="overwrite")
        return cls(table, model_id, dim)

    def count(self) -> int:
        return int(self.table.count_rows())

    def lookup(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        import numpy as np

        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        where = "key IN (" + ", ".join(f"'{k}'" for k in wanted) + ")"
        try:
            rows = self._lookup_rows(where, len(wanted))
        except (OSError, RuntimeError):
            # `funes forget` prunes older versions; a long-lived handle moves to the latest.
            self.table.checkout_latest()
            rows = self._lookup_rows(where, len(wanted))
        found = rows.column("key").to_pylist()
        if not found:
            return {}
        matrix = np.asarray(
            rows.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False),
            dtype=np.float32,
        ).reshape(len(found), self.dim)
        return dict(zip(found, matrix, strict=True))

    def _lookup_rows(self, where: str, wanted: int) -> Any:
        query = self.table.search().where(where).select(["key", "vector"]).limit(wanted * 2)
        return query.to_arrow()

    def known_keys(self) -> set[str]:
        rows = self.table.search().select(["key"]).limit(max(self.count(), 1)).to_arrow()
        return set(rows.column("key").to_pylist())

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        import numpy as np
        import pyarrow as pa

        if not keys:
            return
        flat = np.ascontiguousarray(vectors, dtype=np.float16).reshape(-1)
        vector = pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float16()), self.dim)
        batch = pa.Table.from_arrays(
            [pa.array(list(keys), pa.string()), vector], schema=self.table.schema
        )
        self.table.add(batch)

    def ensure_index(self) -> None:
        """A btree on `key` keeps lookups flat as the cache grows; new rows are folded in."""
        has_index = any("key" in idx.columns for idx in self.table.list_indices())
        if has_index:
            self.table.optimize()
        elif self.count():
            from lancedb.index import BTree

            self.table.create_index("key", config=BTree(), replace=True)

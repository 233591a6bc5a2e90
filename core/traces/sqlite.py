"""Opening an agent's SQLite database without ever writing to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote


def connect_readonly(path: Path) -> sqlite3.Connection:
    """`mode=ro`: safe beside a writer in WAL mode (readers see committed transactions only)."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        return conn
    except sqlite3.OperationalError:
        # A WAL database in a folder we cannot write (no -shm possible): read the file as is.
        return sqlite3.connect(uri + "&immutable=1", uri=True)

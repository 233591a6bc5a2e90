"""Opening an agent's SQLite database without ever writing to it."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

# How long a read waits for another program's write to finish before it gives up for this run
# (the agent's own writes last milliseconds; SQLite's default of 5 s, taken twice, made a
# locked database cost an index run 10 s).
BUSY_WAIT_S = 2.0


class DatabaseBusy(sqlite3.OperationalError):
    """Another program holds the database locked (a write in progress): read it next time."""


def is_busy(error: BaseException) -> bool:
    text = str(error).lower()
    return isinstance(error, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def busy_note(unit: Path) -> str:
    """The warning for a database another program holds locked (not damage: nothing skipped)."""
    return (
        f"{unit}: the database is locked by another program (a write in progress); "
        "not read this time, the next index run reads it"
    )


def unreadable_note(unit: Path, error: sqlite3.Error, doing: str) -> str:
    """The warning for a database that could not be opened or read (`doing`: open | read)."""
    if is_busy(error):
        return busy_note(unit)
    return f"{unit}: cannot {doing} the database ({error}); skipped"


def connect_readonly(path: Path) -> sqlite3.Connection:
    """`mode=ro`: safe beside a writer in WAL mode (readers see committed transactions only).

    Raises `DatabaseBusy` when another program holds the database locked: reading its file
    as it is then (`immutable=1`) would read a half-written transaction and call it damage."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_WAIT_S)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        return conn
    except sqlite3.OperationalError as error:
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
        if is_busy(error):
            raise DatabaseBusy(str(error)) from None
        # A WAL database in a folder we cannot write (no -shm possible): read the file as is.
        return sqlite3.connect(uri + "&immutable=1", uri=True)


def query_readonly(path: Path, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """Every row of one query on the database at `path`, opened read-only and closed again.
    Raises `sqlite3.Error` (`DatabaseBusy` while another program holds it locked)."""
    conn = connect_readonly(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()

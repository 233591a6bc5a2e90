"""What a push publishes of where a session ran: paths relative to the home folder.

A transcript records absolute paths (`/home/alice/code/shop`, the transcript's own
`/home/alice/.claude/projects/…`), which name the user and the layout of their machine. A
pushed row carries them as `~/code/shop`: the part that tells projects apart, without the home.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# Home folders as other machines write them (a memory can hold sessions recorded elsewhere).
_HOME_FOLDER = re.compile(r"^(/home/[^/]+|/Users/[^/]+|/root|[A-Za-z]:[\\/]Users[\\/][^\\/]+)")
PUBLISHED_PATH_COLUMNS = ("workdir", "source_path")


def home_relative(path: str, home: str | None = None) -> str:
    """`path` with its home folder written `~` (this user's home, or any `/home/NAME`,
    `/Users/NAME`, `/root`, `C:\\Users\\NAME`); other paths as they are."""
    home = (home if home is not None else str(Path.home())).rstrip("/\\")
    if home and (path == home or path.startswith((home + "/", home + "\\"))):
        return "~" + path[len(home) :]
    match = _HOME_FOLDER.match(path)
    if match and (len(path) == match.end() or path[match.end()] in "/\\"):
        return "~" + path[match.end() :]
    return path


def home_relative_rows(rows: Any) -> Any:
    """`rows` (an Arrow table of chunks) with PUBLISHED_PATH_COLUMNS made home-relative."""
    import pyarrow as pa

    home = str(Path.home())
    for name in PUBLISHED_PATH_COLUMNS:
        index = rows.schema.get_field_index(name)
        if index < 0:
            continue
        values = [
            None if v is None else home_relative(v, home) for v in rows.column(index).to_pylist()
        ]
        rows = rows.set_column(index, rows.schema.field(index), pa.array(values, pa.string()))
    return rows

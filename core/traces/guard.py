"""What one bad record costs: itself, never the rest of its transcript.

Agents' files are written by many versions of many programs and edited by hand; a value of an
unexpected type (`"content": 5`), a list where an id belongs, a row nested thousands deep. Each
source reads its records one at a time through `skipped_because`, so any error in one record
becomes a warning that names its place (`file:line`, `db:table:rowid`) and the rest is read.
Values that do reach a turn are coerced here to the types the store keeps (`text`,
`optional_text`), so a wrong type can never fail a batch write later.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def skipped_because(error: BaseException) -> str:
    """The warning's words for a record that raised `error` (ends in "skipped", which is what
    `funes doctor` lists)."""
    detail = str(error).strip().splitlines()[0] if str(error).strip() else ""
    detail = f": {detail[:120]}" if detail else ""
    return f"cannot be read ({type(error).__name__}{detail}); skipped"


@contextmanager
def one_record(warnings: list[str], where: str) -> Iterator[None]:
    """Read one record (a row, a message of a document) in this block: an error in it becomes
    the warning `<where>: cannot be read (...); skipped` and the caller goes on to the next."""
    try:
        yield
    except Exception as error:  # whatever one record holds, it costs only itself
        warnings.append(f"{where}: {skipped_because(error)}")


def clean(value: str) -> str:
    """`value` as UTF-8 can store it: a lone surrogate (`"\\ud800"` in JSON, a file name that is
    not UTF-8) becomes `?` instead of failing the write of every row beside it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def text(value: Any) -> str:
    """Any JSON value as the string a text field holds ("" for None)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return clean(json.dumps(value, ensure_ascii=False, default=str))


def optional_text(value: Any) -> str | None:
    """Like `text`, but None (and "") stay None: an id or name that is absent."""
    if value is None or value == "":
        return None
    return text(value)

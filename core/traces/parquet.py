"""Parquet trace exports: conversations from elsewhere (a Hub dataset, another tool) as a file.

The format funes reads, one row per session:

| column        | type                                   | required |
| ------------- | -------------------------------------- | -------- |
| `session_id`  | string                                 | yes      |
| `messages`    | list of struct, or list of JSON string | yes      |
| `harness`     | string (claude_code, codex, …)         | no       |
| `workdir`/`cwd` | string                               | no       |
| `ts`/`sent_at`  | string or timestamp (for messages without one) | no |

Each message is OpenAI chat shaped: `role` (user | assistant | tool; system is skipped),
`content` (string or list of parts), and optionally `reasoning_content`, `tool_calls`
(`[{id, function: {name, arguments}}]`), `tool_call_id`, `tool_name`, `timestamp`. Every message is
one turn: `turn_uuid` = `<session_id>:<message index>`, `parent_uuid` = the previous message's
turn. Rows without a session id or messages are skipped with a warning. A Parquet file is not
appended to, so it is re-read whole when its size or mtime changed and skipped otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from funes.model import HARNESSES
from funes.traces.assemble import TurnAssembler
from funes.traces.base import FileSource, ReadResult, Resume
from funes.traces.chat import add_chat_blocks, chat_role
from funes.traces.guard import one_record
from funes.traces.text import iso_utc

HARNESS = "parquet"
BATCH_ROWS = 256


class ParquetSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        return []  # exports are indexed by naming them

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        import pyarrow.parquet as pq

        stat = unit.stat()
        signature = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
        if resume and resume.get("signature") == signature:
            return ReadResult([], dict(resume))
        assembler = TurnAssembler(HARNESS, str(unit))
        warnings: list[str] = []
        try:
            parquet = pq.ParquetFile(unit)
            names = set(parquet.schema_arrow.names)
            if not {"session_id", "messages"} <= names:
                return ReadResult([], {}, [f"{unit}: needs columns session_id and messages"])
            wanted = [
                c
                for c in ("session_id", "messages", "harness", "workdir", "cwd", "ts", "sent_at")
                if c in names
            ]
            row_no = 0
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=wanted):
                for row in batch.to_pylist():
                    row_no += 1
                    with one_record(warnings, f"{unit}:{row_no}"):
                        _read_row(assembler, row, f"{unit}:{row_no}", warnings)
        except Exception as error:  # a damaged file must not stop an index run
            return ReadResult(assembler.turns, {}, [*warnings, f"{unit}: {error}"], False)
        return ReadResult(assembler.turns, {"signature": signature}, warnings)


def _read_row(
    assembler: TurnAssembler, row: dict[str, Any], where: str, warnings: list[str]
) -> None:
    session = row.get("session_id")
    messages = row.get("messages")
    if not session or not isinstance(messages, list):
        warnings.append(f"{where}: row without session_id or messages; skipped")
        return
    harness = str(row["harness"]) if row.get("harness") in HARNESSES else HARNESS
    workdir = str(row.get("workdir") or row.get("cwd") or "")
    default_ts = row.get("ts") or row.get("sent_at")
    if default_ts is not None and hasattr(default_ts, "isoformat"):
        default_ts = default_ts.isoformat()
    previous: str | None = None
    for index, message in enumerate(messages):
        if isinstance(message, str):
            try:
                message = json.loads(message)
            except (json.JSONDecodeError, RecursionError):
                warnings.append(f"{where}: message {index} is not JSON; skipped")
                continue
        if not isinstance(message, dict):
            continue
        role = chat_role(message)
        if role is None:
            continue
        stamp = message.get("timestamp")
        turn = assembler.start(
            session_id=str(session),
            turn_uuid=f"{session}:{index}",
            parent_uuid=previous,
            ts=iso_utc(stamp if stamp is not None else default_ts),
            role=role,
            workdir=workdir,
        )
        turn.harness = harness
        add_chat_blocks(assembler, turn, message)
        if turn.blocks:
            previous = turn.turn_uuid

"""The read loop shared by the JSONL sources: resume position + parser carry in one token."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from funes.traces.assemble import TurnAssembler
from funes.traces.base import ReadResult, Resume
from funes.traces.guard import skipped_because
from funes.traces.jsonl import Position, read_jsonl

# Called once per record: (assembler, 1-based line number, record).
RecordHandler = Callable[[TurnAssembler, int, dict[str, Any]], None]


def read_incrementally(
    unit: Path, resume: Resume | None, harness: str, handle: RecordHandler
) -> ReadResult:
    """Feed every record added to `unit` since `resume` to `handle`; collect turns and the token."""
    position = Position.from_json((resume or {}).get("pos"))
    read = read_jsonl(unit, position)
    carry = None if read.restarted or position is None else (resume or {}).get("carry")
    assembler = TurnAssembler(harness, str(unit), carry)
    for line_no, record in read.records:
        try:
            handle(assembler, line_no, record)
        except Exception as error:  # one record of an unexpected shape costs only itself
            read.warnings.add(line_no, skipped_because(error))
    token = {"pos": read.position.to_json(), "carry": assembler.carry()}
    return ReadResult(assembler.turns, token, [*read.warnings.finish(), *assembler.warnings])

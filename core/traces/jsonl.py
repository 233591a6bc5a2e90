"""Robust, incremental reading of JSONL transcripts (plain or zstandard-compressed).

Agents append to these files while we read them, users copy them around, and real files hold
damage: a half-written last line, invalid UTF-8, two objects run together on one line, binary junk,
a giant single line. None of it may crash a read or lose the good lines around it.

A `Position` says where the last read stopped: the byte offset just past the last consumed line,
the number of lines consumed, and a fingerprint of the file's head. A later read resumes there
unless the file shrank or its head changed (rewritten), in which case it starts over.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

# A line longer than this is skipped without being held in memory (streamed past).
MAX_LINE_BYTES = 32 * 1024 * 1024
HEAD_BYTES = 4096
READ_BLOCK = 1024 * 1024
# Per read, a kind of warning ("not valid JSON; skipped") names at most this many lines; the
# rest of that kind is counted, so a binary file cannot crowd out a warning of another kind.
MAX_WARNINGS_PER_KIND = 3

_decoder = json.JSONDecoder()


@dataclass(frozen=True)
class Position:
    offset: int = 0  # bytes consumed (of the decompressed stream for .zst)
    line: int = 0  # lines consumed, so warnings name the right line after a resume
    head: str = ""  # sha1 of the first min(offset, HEAD_BYTES) bytes

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "line": self.line, "head": self.head}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Position | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(int(data["offset"]), int(data["line"]), str(data["head"]))
        except (KeyError, TypeError, ValueError):
            return None


@dataclass
class Warnings:
    """Warnings of one read, "path:line: why": a few lines of each kind, then a count per kind,
    so a binary file cannot flood the log or hide a more useful warning."""

    path: str
    items: list[str] = field(default_factory=list)
    shown: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)

    def add(self, line: int | None, why: str) -> None:
        if self.shown[why] >= MAX_WARNINGS_PER_KIND:
            self.dropped[why] += 1
            return
        self.shown[why] += 1
        where = f"{self.path}:{line}" if line is not None else self.path
        self.items.append(f"{where}: {why}")

    def finish(self) -> list[str]:
        more = [
            f"{self.path}: {why} ({n} more line(s) like this)" for why, n in self.dropped.items()
        ]
        return [*self.items, *more]


@dataclass
class JsonlRead:
    records: list[tuple[int, dict[str, Any]]]  # (1-based line number, object)
    position: Position
    restarted: bool  # the resume position no longer fitted the file: read from the start
    warnings: Warnings


def is_zstd(path: Path) -> bool:
    return path.name.endswith(".zst")


def open_stream(path: Path) -> IO[bytes]:
    if not is_zstd(path):
        return path.open("rb")
    # The standard library's zstd (Python 3.14), or its backport: 1.3 MB installed, where the
    # `zstandard` package is 24 MB (two builds of the same library).
    if sys.version_info >= (3, 14):
        from compression import zstd  # type: ignore[import-not-found]
    else:
        from backports import zstd

    return cast(IO[bytes], zstd.open(path, "rb"))


def _head_hash(path: Path, length: int) -> str:
    with open_stream(path) as stream:
        data = stream.read(min(length, HEAD_BYTES))
    return hashlib.sha1(data).hexdigest()


def _fits(path: Path, position: Position) -> bool:
    """True when the file still starts with what we read before and is at least as long."""
    if position.offset == 0:
        return True
    if not is_zstd(path) and path.stat().st_size < position.offset:
        return False
    return _head_hash(path, position.offset) == position.head


def _skip(stream: IO[bytes], count: int) -> int:
    skipped = 0
    while skipped < count:
        block = stream.read(min(READ_BLOCK, count - skipped))
        if not block:
            break
        skipped += len(block)
    return skipped


def _raw_lines(stream: IO[bytes]) -> Iterator[tuple[bytes | None, int, bool]]:
    """Yield (line bytes or None when over the cap, byte length incl. newline, terminated)."""
    buffer = bytearray()
    oversize = False
    oversize_length = 0
    while True:
        block = stream.read(READ_BLOCK)
        if not block:
            break
        start = 0
        while True:
            newline = block.find(b"\n", start)
            if newline < 0:
                piece = block[start:]
                if oversize:
                    oversize_length += len(piece)
                else:
                    buffer += piece
                    if len(buffer) > MAX_LINE_BYTES:
                        oversize, oversize_length = True, len(buffer)
                        buffer = bytearray()
                break
            piece = block[start:newline]
            if oversize:
                yield None, oversize_length + len(piece) + 1, True
                oversize, oversize_length = False, 0
            else:
                buffer += piece
                if len(buffer) > MAX_LINE_BYTES:
                    yield None, len(buffer) + 1, True
                else:
                    yield bytes(buffer), len(buffer) + 1, True
                buffer = bytearray()
            start = newline + 1
    if oversize:
        yield None, oversize_length, False
    elif buffer:
        yield bytes(buffer), len(buffer), False


def split_objects(text: str) -> list[Any] | None:
    """Parse one line that may hold several JSON values run together; None if it is not JSON."""
    values: list[Any] = []
    index, end = 0, len(text)
    while index < end:
        while index < end and text[index].isspace():
            index += 1
        if index >= end:
            break
        try:
            value, index = _decoder.raw_decode(text, index)
        except (json.JSONDecodeError, RecursionError):
            return None
        values.append(value)
    return values


def read_jsonl(path: Path, resume: Position | None = None) -> JsonlRead:
    """Every JSON object appended to `path` since `resume`, with the new position."""
    warnings = Warnings(str(path))
    restarted = False
    if resume is not None and not _fits(path, resume):
        warnings.add(None, "file was rewritten or truncated since the last read; reading it again")
        resume, restarted = None, True
    position = resume or Position()
    records: list[tuple[int, dict[str, Any]]] = []
    offset, line = position.offset, position.line
    with open_stream(path) as stream:
        if offset and not is_zstd(path):
            stream.seek(offset)
        elif offset and _skip(stream, offset) < offset:
            # The decompressed stream is shorter than what we consumed before: rewritten.
            warnings.add(None, "file is shorter than the last read; reading it again")
            return read_jsonl(path, None)
        for raw, length, terminated in _raw_lines(stream):
            line_no = line + 1
            if raw is None:
                if not terminated:
                    warnings.add(line_no, "over-long last line is incomplete; left for next read")
                    break
                warnings.add(line_no, f"line longer than {MAX_LINE_BYTES >> 20} MB skipped")
                offset, line = offset + length, line_no
                continue
            objects = _parse_line(raw, line_no, warnings, terminated)
            if objects is None:
                # Probably the agent is still writing it: do not consume it.
                if raw.strip():
                    warnings.add(line_no, "incomplete last line left for the next read")
                break
            offset, line = offset + length, line_no
            for value in objects:
                if isinstance(value, dict):
                    records.append((line_no, value))
                else:
                    warnings.add(line_no, "JSON value is not an object; skipped")
    head = _head_hash(path, offset) if offset else ""
    return JsonlRead(records, Position(offset, line, head), restarted, warnings)


def _parse_line(raw: bytes, line_no: int, warnings: Warnings, terminated: bool) -> list[Any] | None:
    """The values on one line ([] for a blank or junk line); None for an unfinished last line."""
    if b"\x00" in raw:
        warnings.add(line_no, "binary data, not JSON; skipped")
        return []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        warnings.add(line_no, "invalid UTF-8 replaced with U+FFFD")
    if not text.strip():
        return []
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        pass
    except RecursionError:
        # Nested deeper than Python's parser can follow: no transcript record looks like that.
        warnings.add(line_no, "JSON nested too deeply to read; skipped")
        return []
    values = split_objects(text)
    if values is not None:
        warnings.add(line_no, f"{len(values)} JSON values run together on one line; split")
        return values
    if not terminated:
        return None
    warnings.add(line_no, "not valid JSON; skipped")
    return []

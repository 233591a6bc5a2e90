"""Which agent wrote a file: by where it lives, else by what its first record looks like.

Every `TraceSource.owns` asks `classify`, so exactly one source owns any given file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from funes.paths import claude_home, codex_home, hermes_home, pi_agent_dir
from funes.traces.jsonl import open_stream, split_objects
from funes.traces.sqlite import connect_readonly

SNIFF_BYTES = 256 * 1024
SNIFF_CHUNK = 16 * 1024
JSONL_SUFFIXES = (".jsonl", ".jsonl.zst")


def _under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True


def _first_record(path: Path) -> dict | None:
    """The first JSON object of a JSONL file, reading no more of it than needed."""
    head = b""
    try:
        with open_stream(path) as stream:
            while len(head) < SNIFF_BYTES:
                block = stream.read(SNIFF_CHUNK)
                head += block
                lines = head.split(b"\n")
                complete = lines if not block else lines[:-1]
                for raw in complete:
                    values = split_objects(raw.decode("utf-8", errors="replace").strip())
                    if values and isinstance(values[0], dict):
                        return values[0]
                if not block:
                    return None
    except OSError:
        return None
    return None


def sniff_record(record: dict) -> str:
    """The harness whose JSONL starts with `record`."""
    kind = record.get("type")
    if "payload" in record or kind in (
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
    ):
        return "codex"
    if kind == "session" or (kind == "message" and "message" in record and "uuid" not in record):
        return "pi"
    if "role" in record and "type" not in record:  # Hermes gateway transcript
        return "hermes"
    if "messages" in record and ("session_id" in record or "id" in record):  # hermes export
        return "hermes"
    if record.get("version") == "hermes-agent":  # `hermes sessions export --format trace`
        return "hermes"
    return "claude_code"


def _is_hermes_db(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            if handle.read(16) != b"SQLite format 3\x00":
                return False
        conn = connect_readonly(path)
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False
    return {"messages", "sessions"} <= tables


def _is_hermes_json(path: Path) -> bool:
    if path.name.startswith("session_"):
        return True
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return False
    return '"messages"' in head and '"session_id"' in head


# classify(path) is asked by every source's `owns` for every file of a folder being indexed, and
# answering may open the file; remember answers while the file and the agents' roots stay put.
_answers: dict[tuple[object, ...], str | None] = {}
_MAX_ANSWERS = 100_000


def classify(path: Path) -> str | None:
    """claude_code | codex | pi | hermes | parquet, or None when no source reads this file."""
    try:
        stat = path.stat()
    except OSError:
        return _classify(path)
    roots = (claude_home(), codex_home(), pi_agent_dir(), hermes_home())
    key = (str(path), stat.st_size, stat.st_mtime_ns, roots)
    if key not in _answers:
        if len(_answers) >= _MAX_ANSWERS:
            _answers.clear()
        _answers[key] = _classify(path)
    return _answers[key]


def _classify(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".db"):
        return "hermes" if _is_hermes_db(path) else None
    if name.endswith(".json"):
        if name.startswith("request_dump"):  # API dumps may hold credentials: never read
            return None
        return "hermes" if _is_hermes_json(path) else None
    if not name.endswith(JSONL_SUFFIXES):
        return None
    by_location = (
        (claude_home() / "projects", "claude_code"),
        (codex_home(), "codex"),
        (pi_agent_dir() / "sessions", "pi"),
        (hermes_home(), "hermes"),
    )
    for root, harness in by_location:
        if _under(path, root):
            return harness
    record = _first_record(path)
    return sniff_record(record) if record is not None else "claude_code"

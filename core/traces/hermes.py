"""Hermes Agent: `$HERMES_HOME/state.db` (SQLite), plus its legacy logs and exports.

The database (tables `sessions`, `messages`) is the canonical store. It is opened read-only
(`mode=ro`), which SQLite makes safe while Hermes writes it in WAL mode; each read takes the
rows with an id above the last one seen (ids only grow), so the resume token is that id plus the
per-session seq counters. Every row is one turn (`turn_uuid` = the row id); rows archived by an
in-place compaction (`active=0`) are still indexed. A session spawned by another
(`parent_session_id`: compression splits, delegated subagents) has that id as the `parent_uuid`
of its first turn; its workdir is the `cwd` column where the schema has one.

Also read, in the same OpenAI chat shape:
- `sessions/<id>.jsonl` gateway transcripts (`{"role":"session_meta",…}` then messages);
- `sessions/session_<id>.json` logs, rewritten after every turn (resumed by message count);
- `hermes sessions export` JSONL (one session per line, rows as in the database, so the turn
  uuids are the row ids again) and its Claude-shaped `--format trace` variant.
Legacy files of a session that is also in a `state.db` are not discovered (the same
conversation would be indexed twice); `request_dump_*.json` files may hold credentials and are
never read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

from funes.paths import hermes_home
from funes.traces import claude
from funes.traces.assemble import TurnAssembler
from funes.traces.base import FileSource, ReadResult, Resume, read_database
from funes.traces.chat import add_chat_blocks, chat_role, decode_json
from funes.traces.guard import one_record
from funes.traces.incremental import read_incrementally
from funes.traces.sqlite import query_readonly
from funes.traces.text import iso_utc

HARNESS = "hermes"
MESSAGE_COLUMNS = (
    "id",
    "session_id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "reasoning",
    "reasoning_content",
)


class HermesSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        return [hermes_home()]

    def select(self, found: list[Path]) -> Iterator[Path]:
        """The databases, then the legacy files of sessions no database holds."""
        in_db: set[str] = set()
        for database in (p for p in found if p.suffix == ".db"):
            in_db |= _session_ids(database)
            yield database
        for path in found:
            if path.suffix != ".db" and path.stem.removeprefix("session_") not in in_db:
                yield path

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        if unit.suffix == ".db":
            return _read_database(unit, resume)
        if unit.suffix == ".json":
            return _read_session_log(unit, resume)
        handle = partial(_handle_jsonl_record, stem=unit.stem)
        return read_incrementally(unit, resume, HARNESS, handle)


# --- state.db ---------------------------------------------------------------------------------


def _session_ids(path: Path) -> set[str]:
    try:
        return {str(row[0]) for row in query_readonly(path, "SELECT id FROM sessions")}
    except sqlite3.Error:
        return set()


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _read_database(unit: Path, resume: Resume | None) -> ReadResult:
    resume = resume or {}
    return read_database(unit, resume, lambda conn: _read_rows(conn, unit, resume))


def _read_rows(conn: sqlite3.Connection, unit: Path, resume: Resume) -> ReadResult:
    last_id = int(resume.get("last_id", 0) or 0)
    carry = resume.get("carry")
    warnings: list[str] = []
    max_id = conn.execute("SELECT MAX(id) FROM messages").fetchone()[0] or 0
    if max_id < last_id:
        warnings.append(f"{unit}: database was replaced since the last read; reading it again")
        last_id, carry = 0, None
    sessions = _sessions(conn, unit, warnings)
    present = [c for c in MESSAGE_COLUMNS if c in _columns(conn, "messages")]
    rows = conn.execute(
        f"SELECT {', '.join(present)} FROM messages WHERE id > ? ORDER BY id",
        (last_id,),
    ).fetchall()
    assembler = TurnAssembler(HARNESS, str(unit), carry)
    for values in rows:
        row = dict(zip(present, values, strict=True))
        # One row that cannot be read (a wrong type, `tool_calls` nested thousands deep) is
        # named `state.db:messages:<id>` and skipped; the rest of the database is read.
        with one_record(warnings, f"{unit}:messages:{row['id']}"):
            session = str(row["session_id"])
            cwd, parent = sessions.get(session, ("", None))
            _chat_turn(assembler, row, session, str(row["id"]), cwd, parent)
        if isinstance(row["id"], int):
            last_id = max(last_id, row["id"])
    return ReadResult(assembler.turns, {"last_id": last_id, "carry": assembler.carry()}, warnings)


def _sessions(
    conn: sqlite3.Connection, unit: Path, warnings: list[str]
) -> dict[str, tuple[str, str | None]]:
    """session id → (cwd, parent session id), from whichever columns this schema has; a session
    row that cannot be read is named, and its messages are read without a cwd or parent."""
    columns = _columns(conn, "sessions")
    wanted = [c for c in ("cwd", "parent_session_id", "model_config") if c in columns]
    found: dict[str, tuple[str, str | None]] = {}
    for values in conn.execute(f"SELECT id, {', '.join(wanted) or 'NULL'} FROM sessions"):
        row = dict(zip(["id", *wanted], values, strict=False))
        with one_record(warnings, f"{unit}:sessions:{row['id']}"):
            config = decode_json(row.get("model_config"))
            cwd = row.get("cwd") or (config.get("cwd") if isinstance(config, dict) else "") or ""
            parent = row.get("parent_session_id")
            found[str(row["id"])] = (str(cwd), str(parent) if parent else None)
    return found


def _chat_turn(
    assembler: TurnAssembler,
    message: dict[str, Any],
    session: str,
    turn_uuid: str,
    cwd: str,
    parent_session: str | None,
    ts: Any = None,
) -> None:
    role = chat_role(message)
    if role is None:
        return
    first = assembler.next_seq.get(session, 0) == 0
    turn = assembler.start(
        session_id=session,
        turn_uuid=turn_uuid,
        parent_uuid=parent_session if first else None,
        ts=iso_utc(message.get("timestamp") if message.get("timestamp") is not None else ts),
        role=role,
        workdir=cwd,
    )
    add_chat_blocks(assembler, turn, message)


# --- legacy logs and exports -------------------------------------------------------------------


def _read_session_log(unit: Path, resume: Resume | None) -> ReadResult:
    """`session_<id>.json`: rewritten whole after each turn; resumed by message count."""
    try:
        data = json.loads(unit.read_bytes().decode("utf-8", errors="replace"))
    except (OSError, json.JSONDecodeError) as error:
        return ReadResult([], resume or {}, [f"{unit}:1: not a Hermes session log: {error}"])
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return ReadResult([], resume or {}, [f"{unit}:1: no messages list; skipped"])
    messages = data["messages"]
    seen = int((resume or {}).get("messages", 0))
    carry = (resume or {}).get("carry")
    warnings: list[str] = []
    if seen > len(messages):
        warnings.append(f"{unit}: log shrank since the last read; reading it again")
        seen, carry = 0, None
    session = str(data.get("session_id") or unit.stem.removeprefix("session_"))
    cwd = _session_cwd(data)
    assembler = TurnAssembler(HARNESS, str(unit), carry)
    for index in range(seen, len(messages)):
        message = messages[index]
        if isinstance(message, dict):
            with one_record(warnings, f"{unit}:messages[{index}]"):
                turn_uuid = str(message.get("id") or f"{session}:{index}")
                start = data.get("session_start")
                parent = data.get("parent_session_id")
                _chat_turn(assembler, message, session, turn_uuid, cwd, parent, start)
    token = {"messages": len(messages), "carry": assembler.carry()}
    return ReadResult(assembler.turns, token, warnings)


def _session_cwd(data: dict[str, Any]) -> str:
    try:
        config = decode_json(data.get("model_config"))
    except RecursionError:  # a config nested too deeply to read: no cwd from it
        config = None
    cwd = data.get("cwd") or (config.get("cwd") if isinstance(config, dict) else None)
    return str(cwd or "")


def _handle_jsonl_record(
    assembler: TurnAssembler, line_no: int, record: dict[str, Any], stem: str
) -> None:
    if isinstance(record.get("messages"), list):  # `hermes sessions export`: a session per line
        session = str(record.get("id") or record.get("session_id") or stem)
        cwd, parent = _session_cwd(record), record.get("parent_session_id")
        for index, message in enumerate(record["messages"]):
            if isinstance(message, dict):
                where = f"{assembler.source_path}:{line_no}:messages[{index}]"
                with one_record(assembler.warnings, where):
                    turn_uuid = str(message.get("id") or f"{session}:{index}")
                    _chat_turn(assembler, message, session, turn_uuid, cwd, parent)
    elif "role" in record and "type" not in record:  # gateway transcript line
        if record.get("role") == "session_meta":
            assembler.extra["cwd"] = _session_cwd(record) or assembler.extra.get("cwd", "")
            return
        cwd = assembler.extra.get("cwd", "")
        _chat_turn(assembler, record, stem, f"{stem}:{line_no}", cwd, None)
    else:  # the Claude-shaped `--format trace` export
        claude.handle_record(assembler, line_no, record, None)

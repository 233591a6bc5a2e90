"""opencode: the SQLite database `$XDG_DATA_HOME/opencode/opencode.db` (`$OPENCODE_DB`).

Tables `session` (id, directory, parent_id, …), `message` (id, session_id, time_created,
time_updated, JSON `data`: role, time.completed, error, summary, …) and `part` (id, message_id,
session_id, time_created, JSON `data`: type text|reasoning|tool|file|subtask|step-start|…). Each
message is one turn (`turn_uuid` = the message id), its parts its blocks in id order:

- `text` → text (opencode's own `synthetic` and `ignored` text is left out), `reasoning` →
  thinking, `subtask` → text with `note="subagent"`, `file` → a one-line marker;
- `tool` → a tool_use (its `state.input`) and, once it ran, a tool_result (`state.output`, or
  `state.error`), both named by `part.tool`;
- an assistant message with `summary: true` is a compaction summary (`note="compaction"`).

The database is opened read-only (WAL: a reader sees committed rows only and never blocks
opencode). opencode rewrites a message and its parts while it streams, and a stored chunk is
never rewritten, so a message is read only once it is *finished*: an assistant message once it
has `time.completed` or an `error`; a user message once a later message of its session exists;
any message once nothing of it changed for `SETTLE_MS` (a session cut short). The resume token is
the (time_created, id) below which every message was read, plus the ids read above it; a read
that leaves a message unfinished is marked incomplete, so the next index reads the unit again. A
sub-agent's session (`parent_id`) names its parent as the `parent_uuid` of its first turn.
Session ids are stored without opencode's `ses_` prefix (`stored_session_id`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from funes.paths import opencode_db
from funes.traces.assemble import TurnAssembler
from funes.traces.base import FileSource, ReadResult, Resume, read_database
from funes.traces.chat import decode_json
from funes.traces.guard import one_record
from funes.traces.text import iso_utc, render_tool_input

HARNESS = "opencode"
# A message nothing touched for this long is read as it is, finished or not (opencode was
# stopped mid-answer); a tool running longer than this would be read without its output.
SETTLE_MS = 30 * 60 * 1000
# The watermark trails the newest message by this much: another opencode process may commit a
# message created a little earlier than one already read.
LAG_MS = 5 * 60 * 1000


class OpencodeSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        # The database itself: its folder also holds opencode's git snapshots of every project.
        return [opencode_db()]

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        resume = resume or {}
        return read_database(unit, resume, lambda conn: _read(conn, unit, resume))


def _read(conn: sqlite3.Connection, unit: Path, resume: Resume) -> ReadResult:
    now_ms = int(time.time() * 1000)
    mark = resume.get("mark") or [0, ""]
    done = set(resume.get("done") or [])
    carry = resume.get("carry")
    warnings: list[str] = []
    if mark[0] and conn.execute("SELECT 1 FROM message LIMIT 1").fetchone() is None:
        warnings.append(f"{unit}: database was emptied since the last read; reading it again")
        mark, done, carry = [0, ""], set(), None
    rows = conn.execute(
        "SELECT id, session_id, time_created, time_updated, data FROM message "
        "WHERE time_created > ? OR (time_created = ? AND id > ?) ORDER BY time_created, id",
        (mark[0], mark[0], mark[1]),
    ).fetchall()
    sessions = _sessions(conn, {row[1] for row in rows})
    latest = _latest_per_session(rows)
    parts_of = _parts(conn, mark, unit, warnings)
    assembler = TurnAssembler(HARNESS, str(unit), carry)
    unfinished = False
    for message_id, session_id, created, updated, raw in rows:
        if message_id in done:
            continue
        # One message that cannot be read (a wrong type, `data` nested thousands deep) is
        # named `opencode.db:message:<id>` and counted as read; the rest of the database is.
        settled = True
        with one_record(warnings, f"{unit}:message:{message_id}"):
            settled = _read_message(
                assembler,
                now_ms,
                (message_id, session_id, created, updated, raw),
                parts_of.get(message_id, []),
                sessions,
                latest,
            )
        if not settled:
            unfinished = True
            continue
        done.add(message_id)
    mark, done = _advance(rows, mark, done, now_ms)
    token = {"mark": mark, "done": sorted(done), "carry": assembler.carry()}
    warnings += assembler.warnings
    return ReadResult(assembler.turns, token, warnings, complete=not unfinished)


def _read_message(
    assembler: TurnAssembler,
    now_ms: int,
    row: tuple[Any, ...],
    parts: list[tuple[int, dict[str, Any], Any]],
    sessions: dict[str, tuple[str, str | None]],
    latest: dict[str, tuple[str, int]],
) -> bool:
    """Read one message into a turn if it is finished (True), else leave it (False)."""
    message_id, session_id, created, updated, raw = row
    data = _object(raw)
    touched = max([updated or 0, *(p[0] for p in parts)])
    later = latest.get(session_id, ("", 0))[1] > created
    if not _finished(data, later) and now_ms - touched < SETTLE_MS:
        return False
    cwd, parent = sessions.get(session_id, ("", None))
    session, parent = stored_session_id(session_id), parent and stored_session_id(parent)
    kept = [(p[2], p[1]) for p in parts]
    _turn(assembler, message_id, session, created, data, kept, cwd, parent)
    return True


def stored_session_id(session_id: str) -> str:
    """opencode's session id without its `ses_` prefix: the 12 characters after it start with a
    timestamp, so every session of about 50 days shares the first 8 characters of the full id,
    the part recall shows (`opencode --session ses_<stored id>` opens it)."""
    return session_id.removeprefix("ses_")


def _object(raw: Any) -> dict[str, Any]:
    value = decode_json(raw)
    return value if isinstance(value, dict) else {}


def _sessions(conn: sqlite3.Connection, ids: set[str]) -> dict[str, tuple[str, str | None]]:
    """session id → (directory, parent session id) for the sessions of this read."""
    found: dict[str, tuple[str, str | None]] = {}
    for session_id, directory, parent in conn.execute(
        "SELECT id, directory, parent_id FROM session"
    ):
        if session_id in ids:
            found[session_id] = (str(directory or ""), parent or None)
    return found


def _latest_per_session(rows: list[tuple[Any, ...]]) -> dict[str, tuple[str, int]]:
    latest: dict[str, tuple[str, int]] = {}
    for message_id, session_id, created, *_ in rows:
        latest[session_id] = (message_id, created)
    return latest


def _parts(
    conn: sqlite3.Connection, mark: list[Any], unit: Path, warnings: list[str]
) -> dict[str, list[tuple[int, Any, Any]]]:
    """message id → (time_updated, data, id) of its parts in id order, for the messages above
    `mark`, in one query. A part whose data cannot be read is named `opencode.db:part:<id>`
    and left out; its message keeps its other parts."""
    rows = conn.execute(
        "SELECT p.message_id, p.time_updated, p.data, p.id FROM part p JOIN message m "
        "ON m.id = p.message_id WHERE m.time_created > ? OR (m.time_created = ? AND m.id > ?) "
        "ORDER BY p.message_id, p.id",
        (mark[0], mark[0], mark[1]),
    )
    found: dict[str, list[tuple[int, Any, Any]]] = {}
    for message_id, updated, raw, part_id in rows:
        with one_record(warnings, f"{unit}:part:{part_id}"):
            found.setdefault(message_id, []).append((updated or 0, _object(raw), part_id))
    return found


def _finished(data: dict[str, Any], later_message: bool) -> bool:
    if data.get("role") == "assistant":
        completed = (data.get("time") or {}).get("completed")
        return bool(completed or data.get("error"))
    return later_message


def _advance(
    rows: list[tuple[Any, ...]], mark: list[Any], done: set[str], now_ms: int
) -> tuple[list[Any], set[str]]:
    """Move the watermark over the leading run of read messages old enough to be settled
    (LAG_MS); the ids read above it stay in `done`."""
    for message_id, _session, created, *_ in rows:
        if message_id not in done or now_ms - created < LAG_MS:
            break
        mark = [created, message_id]
        done.discard(message_id)
    return mark, done


def _turn(
    assembler: TurnAssembler,
    message_id: str,
    session_id: str,
    created: int,
    data: dict[str, Any],
    parts: list[tuple[Any, dict[str, Any]]],
    cwd: str,
    parent_session: str | None,
) -> None:
    first = assembler.next_seq.get(session_id, 0) == 0
    role = str(data.get("role") or "")
    workdir = str((data.get("path") or {}).get("cwd") or cwd)
    turn = assembler.start(
        session_id=session_id,
        turn_uuid=message_id,
        parent_uuid=parent_session if first else None,
        ts=iso_utc((data.get("time") or {}).get("created") or created),
        role=role,
        workdir=workdir,
    )
    note = "compaction" if data.get("summary") is True else None
    for part_id, part in parts:
        # A part of an unexpected shape costs only itself: its message keeps the others.
        with one_record(assembler.warnings, f"{assembler.source_path}:part:{part_id}"):
            _add_part(assembler, turn, part, note)
    error = data.get("error")
    if isinstance(error, dict):
        detail = (error.get("data") or {}).get("message") or error.get("name")
        assembler.add(turn, "text", f"[error] {detail}" if detail else None)


def _add_part(assembler: TurnAssembler, turn: Any, part: dict[str, Any], note: str | None) -> None:
    kind = part.get("type")
    if kind == "text" and not part.get("synthetic") and not part.get("ignored"):
        assembler.add(turn, "text", part.get("text"), note=note)
    elif kind == "reasoning":
        assembler.add(turn, "thinking", part.get("text"))
    elif kind == "subtask":
        text = part.get("prompt") or part.get("description")
        assembler.add(turn, "text", text, note="subagent")
    elif kind == "file":
        name = part.get("filename") or part.get("source", {}).get("path") or part.get("mime")
        assembler.add(turn, "text", f"[file {name}]" if name else None)
    elif kind == "tool":
        _add_tool(assembler, turn, part)


def _add_tool(assembler: TurnAssembler, turn: Any, part: dict[str, Any]) -> None:
    name, call_id = part.get("tool"), part.get("callID")
    state = part.get("state") or {}
    assembler.remember_tool(call_id, name)
    rendered = render_tool_input(state.get("input")) or str(name or "")
    assembler.add(turn, "tool_use", rendered, tool_name=name, tool_use_id=call_id)
    if state.get("status") == "completed":
        output = state.get("output")
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        assembler.add(turn, "tool_result", text, tool_name=name, tool_use_id=call_id)
    elif state.get("status") == "error":
        error = f"[error] {state.get('error')}" if state.get("error") else None
        assembler.add(turn, "tool_result", error, tool_name=name, tool_use_id=call_id)

"""Gemini CLI sessions: `~/.gemini/tmp/<project>/chats/session-<date>T<HH-MM>-<id8>.jsonl`.

An append-only log in which later lines patch earlier ones (Gemini CLI's own reader,
`loadConversationRecord`, replays it the same way):

- the first line is the header `{sessionId, projectHash, startTime, lastUpdated, kind}`; a
  subagent's file is `chats/<parent session id>/<session id>.jsonl` with `kind: "subagent"`;
- a message line `{id, timestamp, type: user|gemini|info|error|warning, content, thoughts?,
  toolCalls?}`; the same `id` is written again each time the message grows (its tool calls, then
  their results, then its token counts), the last one winning;
- `{"$set": {...}}` updates the header; a `$set` of `messages` replaces the whole list (history
  rewritten in memory); `{"$rewindTo": id}` drops that message and the ones after it.

What a turn is here: each `user` and `gemini` message, its id the turn uuid, linked to the one
before. A `gemini` message gives thinking (its `thoughts`), its text, and for each tool call a
tool_use and, once it has one, the tool_result. The last message written again adds only the
blocks it did not have (so a turn grows in place across reads, its earlier blocks at the same
indices); a `$set` of messages, or a later copy of an earlier message, adds only the messages
not seen yet. Rewound messages stay indexed (what was said was said). A user message holding
only tool responses is a `tool` turn, and a response already recorded with its call is not
repeated. Skipped: the `<session_context>` and `<hook_context>` text Gemini CLI injects, and
`info`/`error`/`warning` messages (the CLI's own notices).

Sessions from before Gemini CLI wrote JSONL are one JSON document,
`chats/session-<date>T<HH-MM>-<id8>.json` (the header's fields with `messages` inline), rewritten
whole at every save: such a file is read whole again whenever its bytes change (turn ids and seq
numbers come out the same, so nothing is stored twice).

The header names no working directory: it is read from the `.project_root` file Gemini CLI
keeps in the project's folder (else the header's `directories`).
"""

from __future__ import annotations

import hashlib
import json
from functools import partial
from pathlib import Path
from typing import Any

from funes.model import Turn
from funes.paths import gemini_dir
from funes.traces.assemble import TurnAssembler
from funes.traces.base import FileSource, ReadResult, Resume
from funes.traces.gemini_parts import parts_of, parts_text, response_text
from funes.traces.guard import one_record
from funes.traces.incremental import read_incrementally
from funes.traces.text import iso_utc, render_tool_input

HARNESS = "gemini"
ROLES = {"user": "user", "gemini": "assistant"}
INJECTED_PREFIXES = ("<session_context>", "<hook_context>")
# How many message and tool-call ids are remembered across reads (to skip repeats).
ID_MEMORY = 2048


class GeminiSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        return [gemini_dir() / "tmp"]

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        if unit.suffix == ".json":
            return _read_whole(unit, resume)
        return read_incrementally(unit, resume, HARNESS, partial(_handle_record, unit=unit))


def _read_whole(unit: Path, resume: Resume | None) -> ReadResult:
    """A session written as one JSON document: every turn again when its bytes changed."""
    try:
        raw = unit.read_bytes()
    except OSError as error:
        return ReadResult([], dict(resume or {}), [f"{unit}: cannot be read ({error.strerror})"])
    digest = hashlib.sha1(raw).hexdigest()
    if (resume or {}).get("sha1") == digest:
        return ReadResult([], {"sha1": digest})
    try:
        document = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return ReadResult([], {"sha1": digest}, [f"{unit}: not valid JSON; skipped"])
    assembler = TurnAssembler(HARNESS, str(unit))
    if isinstance(document, dict):
        with one_record(assembler.warnings, f"{unit}:1"):
            _handle_record(assembler, 1, document, unit)
    return ReadResult(assembler.turns, {"sha1": digest}, assembler.warnings)


def project_root(unit: Path) -> str:
    """The project folder Gemini CLI recorded beside the session's `chats/` folder."""
    for folder in list(unit.parents)[1:4]:
        marker = folder / ".project_root"
        try:
            return marker.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
    return ""


def _handle_record(assembler: TurnAssembler, line_no: int, record: dict[str, Any], unit: Path):
    state = assembler.extra
    if "session" not in state:
        _start_session(state, record, unit)
    if isinstance(record.get("$set"), dict):
        messages = record["$set"].get("messages")
        _messages(assembler, line_no, messages if isinstance(messages, list) else [])
    elif isinstance(record.get("id"), str):
        _message(assembler, record)
    elif "projectHash" in record and isinstance(record.get("messages"), list):
        # a header rewritten with its messages inline (or a whole `.json` session)
        _messages(assembler, line_no, [m for m in record["messages"] if _has_id(m)])


def _has_id(message: Any) -> bool:
    return isinstance(message, dict) and isinstance(message.get("id"), str)


def _messages(assembler: TurnAssembler, line_no: int, messages: list[Any]) -> None:
    """Each message of a list on its own: one that cannot be read is named and skipped."""
    for index, message in enumerate(messages):
        if isinstance(message, dict):
            where = f"{assembler.source_path}:{line_no}:messages[{index}]"
            with one_record(assembler.warnings, where):
                _message(assembler, message)


def _start_session(state: dict[str, Any], record: dict[str, Any], unit: Path) -> None:
    """Session, working directory and (for a subagent) parent session, from the header."""
    header = record if "projectHash" in record else {}
    state["session"] = str(header.get("sessionId") or unit.stem)
    directories = header.get("directories")
    first_dir = directories[0] if isinstance(directories, list) and directories else ""
    state["cwd"] = project_root(unit) or str(first_dir or "")
    # A subagent's first turn links to its parent session, the folder its file is in.
    nested = header.get("kind") == "subagent" and unit.parent.parent.name == "chats"
    state["prev"] = unit.parent.name if nested else None
    state["seen"], state["results"], state["emitted"] = [], [], []


def _remember(items: list[str], item: str) -> None:
    items.append(item)
    del items[:-ID_MEMORY]


def _message(assembler: TurnAssembler, message: dict[str, Any]) -> None:
    state = assembler.extra
    role = ROLES.get(str(message.get("type") or ""))
    message_id = str(message.get("id") or "")
    if role is None or not message_id:
        return
    turn = assembler.reopen(message_id)
    if turn is None:
        if message_id in state["seen"]:
            return  # an earlier message written again later: its turn is indexed already
        _remember(state["seen"], message_id)
        turn = assembler.start(
            session_id=state["session"],
            turn_uuid=message_id,
            parent_uuid=state.get("prev"),
            ts=iso_utc(message.get("timestamp")),
            role=role,
            workdir=state["cwd"],
            open_key=message_id,
        )
        state["emitted"] = []
    blocks = _assistant_blocks(message) if role == "assistant" else _user_blocks(state, message)
    blocks = [block for block in blocks if block[1].strip()]
    if role == "user" and blocks and all(kind == "tool_result" for kind, *_ in blocks):
        turn.role = "tool"
    for kind, text, tool_name, call_id in blocks:
        _add_once(assembler, turn, kind, text, tool_name, call_id)
    if turn.seq >= 0:
        state["prev"] = message_id


def _add_once(
    assembler: TurnAssembler,
    turn: Turn,
    kind: str,
    text: str,
    tool_name: str | None,
    call_id: str | None,
) -> None:
    """Add a block the open message has not had yet (a rewritten message repeats its blocks)."""
    digest = hashlib.sha1(
        f"{kind}\0{call_id}\0{text}".encode("utf-8", "surrogatepass")
    ).hexdigest()[:16]
    emitted: list[str] = assembler.extra["emitted"]
    if digest in emitted:
        return
    emitted.append(digest)
    if kind == "tool_use":
        assembler.remember_tool(call_id, tool_name)
    if kind == "tool_result" and call_id:
        _remember(assembler.extra["results"], call_id)
    assembler.add(turn, kind, text, tool_name=tool_name, tool_use_id=call_id)


Blocks = list[tuple[str, str, str | None, str | None]]


def _assistant_blocks(message: dict[str, Any]) -> Blocks:
    blocks: Blocks = []
    for thought in message.get("thoughts") or []:
        if isinstance(thought, dict):
            text = "\n".join(str(thought.get(k) or "") for k in ("subject", "description"))
            blocks.append(("thinking", text.strip(), None, None))
    parts = parts_of(message.get("content"))
    blocks.append(("thinking", parts_text(parts, thoughts=True), None, None))
    blocks.append(("text", parts_text(parts), None, None))
    calls = [c for c in message.get("toolCalls") or [] if isinstance(c, dict)]
    for call in calls:
        name, call_id = call.get("name"), call.get("id")
        rendered = render_tool_input(call.get("args")) or str(name or "")
        blocks.append(("tool_use", rendered, name, call_id))
    for call in calls:
        result = _call_result(call)
        if result:
            blocks.append(("tool_result", result, call.get("name"), call.get("id")))
    return blocks


def _call_result(call: dict[str, Any]) -> str:
    """What a recorded tool call returned: its function responses, else what was displayed."""
    responses = [
        part["functionResponse"].get("response")
        for part in parts_of(call.get("result"))
        if isinstance(part.get("functionResponse"), dict)
    ]
    text = "\n".join(response_text(r) for r in responses)
    if not text.strip() and isinstance(call.get("resultDisplay"), str):
        text = call["resultDisplay"]
    return text


def _user_blocks(state: dict[str, Any], message: dict[str, Any]) -> Blocks:
    parts = parts_of(message.get("content"))
    blocks: Blocks = []
    text = parts_text(parts)
    if not text.lstrip().startswith(INJECTED_PREFIXES):
        blocks.append(("text", text, None, None))
    for part in parts:
        response = part.get("functionResponse")
        if not isinstance(response, dict) or response.get("id") in state["results"]:
            continue  # answered in the call's own record already
        result = response_text(response.get("response"))
        blocks.append(("tool_result", result, response.get("name"), response.get("id")))
    return blocks

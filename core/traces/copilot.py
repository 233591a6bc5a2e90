"""GitHub Copilot CLI: `$COPILOT_HOME/session-state/<session id>/events.jsonl` (~/.copilot).

One typed event per line, `{type, data, id, timestamp, parentId}`, appended as the session runs
(so it is read like the other JSONL transcripts: from the last complete line). What is indexed,
one turn per event (`turn_uuid` = the event id, `parent_uuid` = its `parentId`):

- `session.start` / `session.resume`: the session id and working directory (`data.context.cwd`);
- `user.message` → a user turn (`content`: what the user typed, not the model's
  `transformedContent` with its injected date);
- `assistant.message` → thinking (`reasoningText`), text (`content`) and one tool_use per
  `toolRequests` entry; `assistant.reasoning` → thinking (not repeated from the message that
  follows it); a sub-agent's messages
  (`parentToolCallId`) carry `note="subagent"`;
- `tool.execution_complete` → a `tool` turn with the tool_result (`result.content`, or the
  error's message), named by the request it answers;
- `session.compaction_complete` with a `summaryContent` → a system turn, `note="compaction"`.

Hooks, usage records, system prompts and the many UI events are not indexed. A request whose
result never came (a session cut short) keeps its tool_use alone.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from funes.model import Turn
from funes.paths import copilot_home
from funes.traces.assemble import TurnAssembler
from funes.traces.base import FileSource, ReadResult, Resume
from funes.traces.incremental import read_incrementally
from funes.traces.text import iso_utc, render_tool_input

HARNESS = "copilot"


class CopilotSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        return [copilot_home() / "session-state"]

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        handle = partial(_handle_record, stem=unit.parent.name)
        return read_incrementally(unit, resume, HARNESS, handle)


def _handle_record(
    assembler: TurnAssembler, line_no: int, record: dict[str, Any], stem: str
) -> None:
    state = assembler.extra
    kind = record.get("type")
    data = _object(record.get("data"))
    if kind in ("session.start", "session.resume"):
        state.setdefault("session", str(data.get("sessionId") or stem))
        state["cwd"] = str((data.get("context") or {}).get("cwd") or state.get("cwd") or "")
        return
    state.setdefault("session", stem)
    if kind == "user.message":
        assembler.add(_turn(assembler, record, line_no, "user"), "text", data.get("content"))
    elif kind == "assistant.message":
        _assistant(assembler, record, line_no, data)
    elif kind == "assistant.reasoning":
        turn = _turn(assembler, record, line_no, "assistant")
        assembler.add(turn, "thinking", data.get("content"))
        # the next message may repeat it (kept only as text: the carry is saved as JSON)
        state["reasoning"] = data.get("content") if isinstance(data.get("content"), str) else None
    elif kind == "tool.execution_complete":
        _tool_result(assembler, record, line_no, data)
    elif kind == "session.compaction_complete":
        turn = _turn(assembler, record, line_no, "system")
        assembler.add(turn, "text", data.get("summaryContent"), note="compaction")


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _turn(assembler: TurnAssembler, record: dict[str, Any], line_no: int, role: str) -> Turn:
    state = assembler.extra
    session = state["session"]
    return assembler.start(
        session_id=session,
        turn_uuid=str(record.get("id") or f"{session}:{line_no}"),
        parent_uuid=str(record["parentId"]) if record.get("parentId") else None,
        ts=iso_utc(record.get("timestamp")),
        role=role,
        workdir=state.get("cwd", ""),
    )


def _assistant(
    assembler: TurnAssembler, record: dict[str, Any], line_no: int, data: dict[str, Any]
) -> None:
    turn = _turn(assembler, record, line_no, "assistant")
    note = "subagent" if data.get("parentToolCallId") else None
    if data.get("reasoningText") != assembler.extra.pop("reasoning", None):
        assembler.add(turn, "thinking", data.get("reasoningText"))
    assembler.add(turn, "text", data.get("content"), note=note)
    for request in data.get("toolRequests") or []:
        if not isinstance(request, dict):
            continue
        name, call_id = request.get("name"), request.get("toolCallId")
        assembler.remember_tool(call_id, name)
        rendered = render_tool_input(request.get("arguments")) or str(name or "")
        assembler.add(turn, "tool_use", rendered, tool_name=name, tool_use_id=call_id)


def _tool_result(
    assembler: TurnAssembler, record: dict[str, Any], line_no: int, data: dict[str, Any]
) -> None:
    call_id = data.get("toolCallId")
    result, error = _object(data.get("result")), _object(data.get("error"))
    text = result.get("content") if data.get("success") else None
    if not text and error.get("message"):
        text = f"[error] {error['message']}"
    turn = _turn(assembler, record, line_no, "tool")
    name = assembler.tool_name(call_id)
    assembler.add(turn, "tool_result", text, tool_name=name, tool_use_id=call_id)

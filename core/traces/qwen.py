"""Qwen Code sessions: `~/.qwen/projects/<cwd, / → ->/chats/<session id>.jsonl`.

One record per line, shaped like Claude Code's (`uuid`, `parentUuid`, `sessionId`, `cwd`,
`timestamp`, `type` user|assistant|tool_result|system) with the message in the Gemini API's
shape (`message.role` user|model, `message.parts`). What a turn is here:

- a `user` record is the human's prompt; one with a `subtype` (`cron`, `notification`) was
  written by Qwen Code for a scheduled prompt or a background task, kept with that note;
- an `assistant` record is one turn: thinking (`thought` parts), text, and a tool_use per
  `functionCall`. Qwen Code 0.24 reaches MCP tools through a bridge tool, `tool_call {name,
  arguments}`: such a call is recorded under the tool it reached (`mcp__funes__recall`) with
  that tool's arguments;
- a `tool_result` record is a `tool` turn, one tool_result per `functionResponse`, named after
  its call;
- a `chat_compression` system record keeps the summary the history was compressed to
  (`note="compaction"`); every other system record (telemetry, snapshots, slash commands) is
  skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from funes.paths import qwen_home
from funes.traces.assemble import TurnAssembler
from funes.traces.base import FileSource, ReadResult, Resume
from funes.traces.gemini_parts import parts_of, parts_text, response_text
from funes.traces.incremental import read_incrementally
from funes.traces.text import iso_utc, render_tool_input

HARNESS = "qwen"
BRIDGE_TOOL = "tool_call"
ROLES = {"user": "user", "assistant": "assistant", "tool_result": "tool", "system": "system"}


class QwenSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        return [qwen_home() / "projects"]

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        return read_incrementally(unit, resume, HARNESS, _handle_record)


def _handle_record(assembler: TurnAssembler, line_no: int, record: dict[str, Any]) -> None:
    kind = str(record.get("type") or "")
    if kind not in ROLES:
        return
    if kind == "system" and record.get("subtype") != "chat_compression":
        return
    message: dict[str, Any] = record["message"] if isinstance(record.get("message"), dict) else {}
    session = str(record.get("sessionId") or "unknown")
    turn = assembler.start(
        session_id=session,
        turn_uuid=str(record.get("uuid") or f"{session}:{line_no}"),
        parent_uuid=record.get("parentUuid"),
        ts=iso_utc(record.get("timestamp")),
        role=ROLES[kind],
        workdir=str(record.get("cwd") or ""),
    )
    parts = parts_of(message.get("parts"))
    if kind == "system":
        summary = _compression_summary(record.get("systemPayload"))
        assembler.add(turn, "text", summary, note="compaction")
    elif kind == "user":
        subtype = record.get("subtype")
        assembler.add(turn, "text", parts_text(parts), note=str(subtype) if subtype else None)
    elif kind == "assistant":
        assembler.add(turn, "thinking", parts_text(parts, thoughts=True))
        assembler.add(turn, "text", parts_text(parts))
        for part in parts:
            if isinstance(part.get("functionCall"), dict):
                _tool_use(assembler, turn, part["functionCall"])
    else:
        for part in parts:
            response = part.get("functionResponse")
            if isinstance(response, dict):
                call_id = response.get("id")
                name = assembler.tool_name(call_id) or response.get("name")
                text = response_text(response.get("response"))
                assembler.add(turn, "tool_result", text, tool_name=name, tool_use_id=call_id)


def _tool_use(assembler: TurnAssembler, turn: Any, call: dict[str, Any]) -> None:
    name, args, call_id = call.get("name"), call.get("args"), call.get("id")
    if name == BRIDGE_TOOL and isinstance(args, dict) and isinstance(args.get("name"), str):
        name, args = args["name"], args.get("arguments")
    assembler.remember_tool(call_id, name)
    text = render_tool_input(args) or str(name or "")
    assembler.add(turn, "tool_use", text, tool_name=name, tool_use_id=call_id)


def _compression_summary(payload: Any) -> str:
    """The text of the history a compression left (its summary leads it)."""
    history = payload.get("compressedHistory") if isinstance(payload, dict) else None
    for content in history if isinstance(history, list) else []:
        if isinstance(content, dict):
            text = parts_text(parts_of(content.get("parts")))
            if text.strip():
                return text
    return ""

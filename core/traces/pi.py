"""pi coding agent sessions: `$PI_CODING_AGENT_DIR/sessions/--<cwd>--/<ts>_<id>.jsonl`.

The first line is the header `{type:"session", [version:3], id, timestamp, cwd}`; every entry
after it is one line. Version 3 entries carry `id`/`parentId` (a tree: abandoned branches stay
in the file, and every branch is indexed); legacy v1 entries carry neither, so their turn uuid is
`<session_id>:<line>`. Each `message` entry is one turn:

- `user` → text; `assistant` → thinking, text, and `toolCall` → tool_use (arguments rendered);
- `toolResult` → a `tool` turn with one tool_result, named by its `toolName`;
- `bashExecution` (the user's `!command`) → a `user` turn with the command and its output;
- `compactionSummary`/`branchSummary` messages and `compaction`/`branch_summary` entries → a
  `system` turn with `note="compaction"` / `note="branch_summary"`;
- `custom` messages and `custom_message` entries (extension output shown to the model) → text of
  role `custom`. Model/thinking-level changes, labels and session info are not indexed.

Whitespace-only text (pi often writes "\n\n") is dropped. A line holding two entries run together
(a real corruption in old pi files) yields both.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from funes.paths import pi_agent_dir
from funes.traces.assemble import TurnAssembler, add_assistant_content
from funes.traces.base import FileSource, ReadResult, Resume
from funes.traces.guard import optional_text
from funes.traces.incremental import read_incrementally
from funes.traces.text import flatten_content, iso_utc

HARNESS = "pi"
SUMMARY_ENTRIES = {"compaction": "compaction", "branch_summary": "branch_summary"}
SUMMARY_ROLES = {"compactionSummary": "compaction", "branchSummary": "branch_summary"}


class PiSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        return [pi_agent_dir() / "sessions"]

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        handle = partial(_handle_record, stem=unit.stem.rsplit("_", 1)[-1])
        return read_incrementally(unit, resume, HARNESS, handle)


def _handle_record(
    assembler: TurnAssembler, line_no: int, record: dict[str, Any], stem: str
) -> None:
    state = assembler.extra
    kind = record.get("type")
    if kind == "session":
        if "session" not in state:
            state["session"] = str(record.get("id") or stem)
            state["cwd"] = str(record.get("cwd") or "")
            parent = record.get("parentSession") or record.get("branchedFrom")
            state["parent"] = optional_text(parent)  # the carry is saved as JSON: text only
        return
    state.setdefault("session", stem)
    uuid = _turn_uuid(state, line_no, record)
    ts = iso_utc(record.get("timestamp"))
    if kind in SUMMARY_ENTRIES:
        turn = _start(assembler, record, uuid, ts, "system")
        assembler.add(turn, "text", str(record.get("summary") or ""), note=SUMMARY_ENTRIES[kind])
    elif kind == "custom_message":
        turn = _start(assembler, record, uuid, ts, "custom")
        assembler.add(turn, "text", flatten_content(record.get("content")))
    elif kind == "message" and isinstance(record.get("message"), dict):
        message = record["message"]
        if not ts:
            ts = iso_utc(message.get("timestamp"))
        _message(assembler, record, message, uuid, ts)


def _turn_uuid(state: dict[str, Any], line_no: int, record: dict[str, Any]) -> str:
    if record.get("id"):
        return str(record["id"])
    same_line = state.get("line") == line_no
    state["sub"] = state.get("sub", 0) + 1 if same_line else 0
    state["line"] = line_no
    suffix = f".{state['sub']}" if state["sub"] else ""
    return f"{state['session']}:{line_no}{suffix}"


def _start(assembler: TurnAssembler, record: dict[str, Any], uuid: str, ts: str, role: str):
    state = assembler.extra
    parent = record.get("parentId")
    if not state.get("linked"):
        state["linked"] = True
        parent = parent or state.get("parent")
    return assembler.start(
        session_id=state["session"],
        turn_uuid=uuid,
        parent_uuid=str(parent) if parent else None,
        ts=ts,
        role=role,
        workdir=state.get("cwd", ""),
    )


def _message(
    assembler: TurnAssembler,
    record: dict[str, Any],
    message: dict[str, Any],
    uuid: str,
    ts: str,
) -> None:
    role = str(message.get("role") or "")
    if role == "user":
        turn = _start(assembler, record, uuid, ts, "user")
        assembler.add(turn, "text", flatten_content(message.get("content")))
    elif role == "assistant":
        turn = _start(assembler, record, uuid, ts, "assistant")
        add_assistant_content(
            assembler,
            turn,
            message.get("content"),
            tool_call_type="toolCall",
            arguments_key="arguments",
        )
    elif role == "toolResult":
        turn = _start(assembler, record, uuid, ts, "tool")
        call_id = message.get("toolCallId")
        assembler.add(
            turn,
            "tool_result",
            flatten_content(message.get("content")),
            tool_name=message.get("toolName") or assembler.tool_name(call_id),
            tool_use_id=call_id,
        )
    elif role == "bashExecution":
        turn = _start(assembler, record, uuid, ts, "user")
        assembler.add(turn, "tool_use", str(message.get("command") or ""), tool_name="bash")
        assembler.add(turn, "tool_result", str(message.get("output") or ""), tool_name="bash")
    elif role in SUMMARY_ROLES:
        turn = _start(assembler, record, uuid, ts, "system")
        text = message.get("summary") or flatten_content(message.get("content"))
        assembler.add(turn, "text", str(text or ""), note=SUMMARY_ROLES[role])
    elif role in ("custom", "hookMessage"):
        turn = _start(assembler, record, uuid, ts, "custom")
        assembler.add(turn, "text", flatten_content(message.get("content")))

"""OpenAI-style chat messages (`role`, `content`, `tool_calls`, `tool_call_id`) → blocks.

Hermes (its database, logs and exports) and funes's Parquet export both store conversations in
this shape.
"""

from __future__ import annotations

import json
from typing import Any

from funes.model import Turn
from funes.traces.assemble import TurnAssembler
from funes.traces.text import flatten_content, render_tool_input

SKIPPED_ROLES = frozenset({"system", "session_meta", "developer"})


def decode_json(value: Any) -> Any:
    """A JSON column may hold the JSON text or the value itself."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def chat_role(message: dict[str, Any]) -> str | None:
    """The turn role for a message, or None when the message is not indexed."""
    role = str(message.get("role") or "")
    return None if not role or role in SKIPPED_ROLES else role


def add_chat_blocks(assembler: TurnAssembler, turn: Turn, message: dict[str, Any]) -> None:
    role = turn.role
    content = message.get("content")  # plain text, or a list of parts
    if role == "tool":
        call_id = message.get("tool_call_id")
        name = message.get("tool_name") or message.get("name") or assembler.tool_name(call_id)
        text = content if isinstance(content, str) else flatten_content(content)
        assembler.add(turn, "tool_result", text, tool_name=name, tool_use_id=call_id)
        return
    thinking = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(thinking, str):
        assembler.add(turn, "thinking", thinking)
    text = content if isinstance(content, str) else flatten_content(content)
    assembler.add(turn, "text", text)
    calls = decode_json(message.get("tool_calls"))
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        function: dict[str, Any] = (
            call["function"] if isinstance(call.get("function"), dict) else call
        )
        name = function.get("name")
        call_id = call.get("id") or call.get("call_id")
        assembler.remember_tool(call_id, name)
        rendered = render_tool_input(function.get("arguments")) or str(name or "")
        assembler.add(turn, "tool_use", rendered, tool_name=name, tool_use_id=call_id)

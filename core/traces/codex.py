"""Codex CLI rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl[.zst]`.

Each line is `{timestamp, [ordinal], type, payload}`. What becomes turns:

- the human prompt: `event_msg/user_message`, or the `response_item` user message (Codex 0.17x
  writes only that one); when both are written, the second copy is skipped. Injected context in
  user messages (`<environment_context>`, AGENTS.md and other instructions) is not the user's
  words and is dropped; `developer`/`system` messages are dropped;
- a run of assistant items (reasoning summaries → thinking, messages → text, `function_call`,
  `custom_tool_call`, `local_shell_call`, `web_search_call`, … → tool_use) is one assistant turn,
  and the outputs that follow (`*_output`, linked back to their call's name by `call_id`) are
  one `tool` turn;
- `compacted` summaries → a `system` turn with `note="compaction"`; inter-agent messages → text
  with `note="subagent"`;
- `event_msg` duplicates of response items (agent_message, agent_reasoning, …), `turn_context`,
  `world_state`, `ghost_snapshot`, token counts are not indexed.

A file is one session: the first `session_meta` names it (later ones, written on resume or
carried in a fork's history, do not). A subagent or forked rollout names its parent thread in
that first `session_meta`; its first turn gets that id as `parent_uuid`. Turn uuids are
`<session_id>:<line>` (line of the turn's first item), stable across re-reads.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from funes.paths import codex_home
from funes.traces.assemble import TurnAssembler, text_digest
from funes.traces.base import FileSource, ReadResult, Resume
from funes.traces.incremental import read_incrementally
from funes.traces.text import decode_object, flatten_content, iso_utc, render_tool_input

HARNESS = "codex"
INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<skills_instructions>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<apps_instructions>",
    "<personality",
    "<turn_aborted>",
)
TOOL_CALLS = {
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "image_generation_call",
}
TOOL_OUTPUTS = {
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "tool_search_output",
}


class CodexSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        home = codex_home()
        return [home / "sessions", home / "archived_sessions"]

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        handle = partial(_handle_record, stem=unit.name.split(".")[0])
        return read_incrementally(unit, resume, HARNESS, handle)


def _parent_thread(meta: dict[str, Any]) -> str | None:
    source = meta.get("source")
    if isinstance(source, dict):
        spawn = (source.get("subagent") or {}) if isinstance(source.get("subagent"), dict) else {}
        parent = (spawn.get("thread_spawn") or {}).get("parent_thread_id")
        if parent:
            return str(parent)
    for key in ("parent_thread_id", "forked_from_id"):
        if meta.get(key):
            return str(meta[key])
    return None


def _handle_record(
    assembler: TurnAssembler, line_no: int, record: dict[str, Any], stem: str
) -> None:
    state = assembler.extra
    kind = record.get("type")
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return
    if kind == "session_meta":
        if "session" not in state:
            state["session"] = str(payload.get("id") or payload.get("session_id") or stem)
            state["cwd"] = str(payload.get("cwd") or "")
            state["parent"] = _parent_thread(payload)
        return
    if kind == "turn_context" and payload.get("cwd"):
        state["cwd"] = str(payload["cwd"])
        return
    state.setdefault("session", stem)
    item = payload.get("type")
    ts = iso_utc(record.get("timestamp"))
    uuid = _turn_uuid(state, line_no)
    if kind == "event_msg" and item == "user_message":
        _prompt(assembler, uuid, ts, str(payload.get("message") or ""))
    elif kind == "compacted":
        assembler.close()
        turn = _start(assembler, uuid, ts, "system")
        assembler.add(turn, "text", str(payload.get("message") or ""), note="compaction")
    elif kind == "response_item":
        _response_item(assembler, uuid, ts, item, payload)


def _turn_uuid(state: dict[str, Any], line_no: int) -> str:
    """`<session>:<line>`, with `.<n>` for a second object on the same (damaged) line."""
    same_line = state.get("line") == line_no
    state["sub"] = state.get("sub", 0) + 1 if same_line else 0
    state["line"] = line_no
    suffix = f".{state['sub']}" if state["sub"] else ""
    return f"{state['session']}:{line_no}{suffix}"


def _start(assembler: TurnAssembler, uuid: str, ts: str, role: str, key: str | None = None):
    state = assembler.extra
    parent = None
    if not state.get("linked"):
        state["linked"] = True
        parent = state.get("parent")
    return assembler.start(
        session_id=state["session"],
        turn_uuid=uuid,
        parent_uuid=parent,
        ts=ts,
        role=role,
        workdir=state.get("cwd", ""),
        open_key=key,
    )


def _prompt(
    assembler: TurnAssembler, uuid: str, ts: str, text: str, words: str | None = None
) -> None:
    """A human prompt, unless it is the second copy of the one just seen (compared on `words`,
    the text without image markers)."""
    normal = " ".join((text if words is None else words).split())
    if not normal:
        return
    # Hashes (older resume points hold the words): the resume point rests on disk.
    recent: list[str] = assembler.extra.setdefault("prompts", [])
    digest = text_digest(normal)
    if digest in recent or normal in recent:
        return
    recent.append(digest)
    assembler.close()
    assembler.add(_start(assembler, uuid, ts, "user"), "text", text)


def _in_run(assembler: TurnAssembler, uuid: str, ts: str, role: str):
    """The open turn of this role's run, or a new one; anything but a prompt forgets prompts."""
    assembler.extra["prompts"] = []
    key = f"{assembler.extra['session']}\x00{role}"
    return assembler.reopen(key) or _start(assembler, uuid, ts, role, key)


def _tool_name(payload: dict[str, Any], default: str) -> str:
    name = str(payload.get("name") or default)
    namespace = payload.get("namespace")
    if isinstance(namespace, str) and namespace and not name.startswith(namespace):
        return f"{namespace}__{name}"
    return name


def _response_item(
    assembler: TurnAssembler, uuid: str, ts: str, item: Any, payload: dict[str, Any]
) -> None:
    if item == "message":
        role = payload.get("role")
        content = payload.get("content")
        if role == "user":
            parts = content if isinstance(content, list) else [content]
            kept = [p for p in parts if not _injected(p)]
            words = flatten_content(kept, image_marker=False)
            _prompt(assembler, uuid, ts, flatten_content(kept), words)
        elif role == "assistant":
            turn = _in_run(assembler, uuid, ts, "assistant")
            assembler.add(turn, "text", flatten_content(content))
    elif item == "reasoning":
        turn = _in_run(assembler, uuid, ts, "assistant")
        assembler.add(turn, "thinking", _reasoning_text(payload))
    elif item == "agent_message":
        turn = _in_run(assembler, uuid, ts, "assistant")
        assembler.add(turn, "text", flatten_content(payload.get("content")), note="subagent")
    elif item in TOOL_CALLS:
        name, text = _tool_call(item, payload)
        call_id = payload.get("call_id") or payload.get("id")
        assembler.remember_tool(call_id, name)
        turn = _in_run(assembler, uuid, ts, "assistant")
        assembler.add(turn, "tool_use", text or name, tool_name=name, tool_use_id=call_id)
    elif item in TOOL_OUTPUTS:
        call_id = payload.get("call_id")
        turn = _in_run(assembler, uuid, ts, "tool")
        assembler.add(
            turn,
            "tool_result",
            _output_text(payload),
            tool_name=assembler.tool_name(call_id),
            tool_use_id=call_id,
        )


def _injected(part: Any) -> bool:
    text = part.get("text") if isinstance(part, dict) else part
    return isinstance(text, str) and text.lstrip().startswith(INJECTED_PREFIXES)


def _reasoning_text(payload: dict[str, Any]) -> str:
    summary = payload.get("summary")
    parts = [s.get("text", "") for s in summary or [] if isinstance(s, dict)]
    if not any(part.strip() for part in parts) and isinstance(payload.get("content"), list):
        parts = [c.get("text", "") for c in payload["content"] if isinstance(c, dict)]
    return "\n".join(part for part in parts if isinstance(part, str) and part)


def _tool_call(item: str, payload: dict[str, Any]) -> tuple[str, str]:
    if item == "local_shell_call":
        action = payload.get("action") or {}
        return "shell", render_tool_input({"command": action.get("command")})
    if item == "web_search_call":
        action = payload.get("action") or {}
        return "web_search", render_tool_input({k: action.get(k) for k in ("query", "url")})
    if item == "image_generation_call":
        return "image_generation", str(payload.get("revised_prompt") or "")
    if item == "tool_search_call":
        return "tool_search", render_tool_input(payload.get("arguments"))
    raw = payload.get("arguments") if item == "function_call" else payload.get("input")
    return _tool_name(payload, item), render_tool_input(raw)


def _output_text(payload: dict[str, Any]) -> str:
    if payload.get("type") == "tool_search_output":
        tools = payload.get("tools") or []
        return "\n".join(str(t.get("name")) for t in tools if isinstance(t, dict))
    output = payload.get("output")
    if isinstance(output, str):
        # Codex ≤0.5x wraps shell output as {"output": …, "metadata": …}.
        decoded = decode_object(output)
        if decoded is not None and isinstance(decoded.get("output"), str):
            return decoded["output"]
        return output
    if isinstance(output, dict) and isinstance(output.get("content"), str | list):
        return flatten_content(output["content"])
    return flatten_content(output)

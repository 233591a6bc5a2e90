"""Subagent sessions and the sessions that started them, from what the memory stores.

The parsers store a subagent's transcript as a session of its own whose first turn's
`parent_uuid` is the parent's session id (Claude Code `agent-*.jsonl` files and inline
`isSidechain` records; the same holds for the other agents that have subagents). The parent's
transcript may be missing (Claude Code leaves `agent-*.jsonl` files beside an empty session
file); such a subagent is *stray*: it is marked with the parent's id, not linked.

What a subagent was asked to do is in the parent's Task/Agent call: its `description` names the
task and its `prompt` is the subagent's first prompt. `task_calls` pairs each call with the
subagent session whose first prompt is the call's prompt (parallel calls included: results come
back in any order, prompts do not change), so a page can link a call to the transcript and name
a subagent by its task.

API (small, so recall can use it too):

- `is_subagent_id(session_id)`: a Claude Code subagent's session (`agent-…`).
- `is_warmup(first_prompt)`: Claude Code's `Warmup` probe: a subagent with nothing in it.
- `parents(store, session_ids)`: session id → the id its first turn names as its parent.
- `task_calls(store, parent)`: the parent's Task/Agent calls, each with the subagent it started.
- `call_fields(text)`: a Task/Agent call's `description`, `subagent_type` and `prompt`.
- `describe(store, session)`: one subagent's parent, task and the call that started it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from funes.retrieve.filters import quote_sql

# The tools that start a subagent (Claude Code's Task, later Agent; opencode's task).
SUBAGENT_TOOLS = ("Task", "Agent", "task")
_FIELD = re.compile(r"^(description|subagent_type|prompt):[ \n]?(.*)$", re.M)
_LABEL = re.compile(r"^\[tool_(?:use|result) [^\]]*\] ?")
# How much of a prompt is compared to tell which subagent a call started.
_PROMPT_KEY = 120


@dataclass(slots=True)
class TaskCall:
    """One Task/Agent call of a parent session and the subagent session it started."""

    turn_uuid: str  # the parent's turn that holds the call
    seq: int
    description: str  # the call's `description` ("" when it had none)
    agent_type: str  # its `subagent_type`
    prompt: str  # the start of its prompt
    subagent: str  # the subagent's session id ("" when its transcript is not in the memory)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class SubagentInfo:
    session_id: str
    parent: str  # the parent's session id ("" when none is recorded)
    parent_in_memory: bool
    task: str  # the description of the call that started it, else its first prompt's start
    call_turn: str  # the parent's turn holding that call ("" when not found)


def is_subagent_id(session_id: str) -> bool:
    return session_id.startswith("agent-")


def is_warmup(first_prompt: str) -> bool:
    """Claude Code starts `Warmup` subagents to fill its prompt cache: nothing to read."""
    return first_prompt.strip() == "Warmup"


def parents(
    store: Any, session_ids: list[str] | None = None, *, parent_prefix: str = ""
) -> dict[str, str]:
    """The parent session id each subagent session names on its first turn (all sessions when
    `session_ids` is None; only the parents whose id starts with `parent_prefix` when given).
    A parent id may name a session the memory does not hold."""
    where = "seq = 0 AND parent_uuid IS NOT NULL"
    if parent_prefix:
        where += f" AND starts_with(parent_uuid, {quote_sql(parent_prefix)})"
    if session_ids is not None:
        if not session_ids:
            return {}
        where += f" AND session_id IN ({', '.join(quote_sql(s) for s in session_ids)})"
    found: dict[str, str] = {}
    for row in store.scan(["session_id", "parent_uuid"], where=where).to_pylist():
        child, parent = row["session_id"], row["parent_uuid"]
        if parent and parent != child and _looks_like_session(child, parent):
            found.setdefault(child, parent)
    return found


def _looks_like_session(child: str, parent: str) -> bool:
    """A first turn's parent_uuid is a session id only for subagents; elsewhere it is a turn
    id of a resumed or forked transcript (then it names no session: the caller checks)."""
    return is_subagent_id(child) or "-" in parent


def task_calls(store: Any, parent: str) -> list[TaskCall]:
    """The Task/Agent calls of session `parent`, in order, each paired with the subagent
    session it started: by the `agentId` its result names, else by the subagent whose first
    prompt is the call's prompt."""
    tools = ", ".join(quote_sql(t) for t in SUBAGENT_TOOLS)
    where = f"session_id = {quote_sql(parent)} AND tool_name IN ({tools})"
    rows = store.scan(
        ["turn_uuid", "seq", "block_type", "block_idx", "split_idx", "text"], where=where
    ).to_pylist()
    rows.sort(key=lambda r: (r["seq"], r["block_idx"], r["split_idx"]))
    blocks: dict[tuple[str, int, int, str], str] = {}
    for row in rows:
        key = (row["turn_uuid"], row["seq"], row["block_idx"], row["block_type"])
        blocks[key] = blocks.get(key, "") + (row["text"] or "")
    children = _children(store, parent)
    calls: list[TaskCall] = []
    for (turn_uuid, seq, _, kind), text in blocks.items():
        if kind != "tool_use":
            continue
        fields = call_fields(_LABEL.sub("", text))
        prompt = fields.get("prompt", "")
        calls.append(
            TaskCall(
                turn_uuid,
                seq,
                fields.get("description", ""),
                fields.get("subagent_type", ""),
                prompt[:200],
                _match(prompt, children),
            )
        )
    return calls


def call_fields(text: str) -> dict[str, str]:
    """`description`, `subagent_type` and `prompt` of a Task/Agent call's text (`key: value`
    lines; the prompt runs to the next key)."""
    found: dict[str, str] = {}
    matches = list(_FIELD.finditer(text))
    for n, match in enumerate(matches):
        key = match.group(1)
        if key == "prompt":
            end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
            found[key] = text[match.start(2) : end].strip()
        else:
            found[key] = match.group(2).strip()
    return found


def _children(store: Any, parent: str) -> dict[str, str]:
    """The parent's subagent sessions → the start of each one's first prompt."""
    rows = store.scan(
        ["session_id"], where=f"seq = 0 AND parent_uuid = {quote_sql(parent)}"
    ).to_pylist()
    ids = sorted({r["session_id"] for r in rows if r["session_id"] != parent})
    if not ids:
        return {}
    listed = ", ".join(quote_sql(s) for s in ids)
    texts = store.scan(
        ["session_id", "seq", "text"],
        where=f"session_id IN ({listed}) AND role = 'user' AND block_type = 'text' "
        "AND split_idx = 0",
    ).to_pylist()
    texts.sort(key=lambda r: r["seq"])
    first: dict[str, str] = {}
    for row in texts:
        first.setdefault(row["session_id"], _key(row["text"] or ""))
    return {session: first.get(session, "") for session in ids}


def _key(text: str) -> str:
    return " ".join(text.split())[:_PROMPT_KEY]


def _match(prompt: str, children: dict[str, str]) -> str:
    key = _key(prompt)
    if key:
        for session, first in children.items():
            if first and (first.startswith(key) or key.startswith(first)):
                return session
    return ""


def describe(store: Any, session_id: str, parent: str | None = None) -> SubagentInfo | None:
    """Who started subagent session `session_id` and for what (None when it is no subagent).
    `parent`: its parent's id when the caller already looked it up (`parents`)."""
    if parent is None:
        parent = parents(store, [session_id]).get(session_id, "")
    if not parent:
        return None
    in_memory = bool(store.count(f"session_id = {quote_sql(parent)}"))
    call = next((c for c in task_calls(store, parent) if c.subagent == session_id), None)
    task = call.description if call and call.description else ""
    if not task:
        first = _children(store, parent).get(session_id, "") if in_memory else ""
        task = first[:80]
    return SubagentInfo(session_id, parent, in_memory, task, call.turn_uuid if call else "")

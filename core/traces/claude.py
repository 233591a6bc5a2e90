"""Claude Code transcripts: `$CLAUDE_CONFIG_DIR/projects/<munged cwd>/<session>.jsonl`.

One JSON record per line (`type` user|assistant|system|summary|…, `uuid`/`parentUuid`, `sessionId`,
`cwd`, `timestamp`, `message` in Anthropic Messages shape). What a turn is here:

- a `user` record is one turn (the human's prompt, or the results of tool calls, role `user`);
- an assistant message is one turn, although Claude Code writes each of its content blocks as its
  own record: records are merged back by `message.id` (tool results in between do not end the
  message, the next human prompt does); the turn's uuid is the first record's;
- `tool_result` blocks get the name of the `tool_use` they answer (by `tool_use_id`);
- compaction summaries (`isCompactSummary`) are kept as text with `note="compaction"`;
- skipped: `isMeta` text (injected caveats, skill preambles; their tool results are kept), API
  error and `<synthetic>` messages, and every non-message record (`system`, `summary`, `progress`,
  `attachment`, `file-history-snapshot`, `queue-operation`, titles, modes, …).

Subagents, in all three layouts, become sessions of their own, linked to their parent: their
session_id is `agent-<agentId>` (the file stem of layouts 2 and 3; for layout 1, inline
`isSidechain` records without an agentId, the first 8 hex of the sidechain's root uuid), and the
first turn of a subagent session has `parent_uuid` = the parent's session id (the records' own
`sessionId`). Large tool outputs that Claude Code persisted to `tool-results/` keep their
preview; the text already names the file holding the full output.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from funes.paths import claude_home
from funes.traces.assemble import TurnAssembler, add_assistant_content
from funes.traces.base import FileSource, ReadResult, Resume
from funes.traces.incremental import read_incrementally
from funes.traces.text import clean_user_text, content_parts, flatten_content, iso_utc

HARNESS = "claude_code"
# How many sidechain uuids are remembered to find which subagent a record belongs to.
SIDECHAIN_MEMORY = 4096
# How many recent turn uuids are remembered to catch a repeated (or missing) record uuid.
UUID_MEMORY = 256


class ClaudeSource(FileSource):
    harness = HARNESS

    def default_roots(self) -> list[Path]:
        return [claude_home() / "projects"]

    def read(self, unit: Path, resume: Resume | None = None) -> ReadResult:
        subagent_id = unit.stem[len("agent-") :] if unit.stem.startswith("agent-") else None
        handle = partial(handle_record, subagent_id=subagent_id)
        return read_incrementally(unit, resume, HARNESS, handle)


def _session_of(assembler: TurnAssembler, record: dict[str, Any], subagent_id: str | None) -> str:
    """The session a record belongs to, following the subagent rules of the module doc."""
    session = str(record.get("sessionId") or "")
    if subagent_id is not None:
        return f"agent-{subagent_id}"
    if not record.get("isSidechain"):
        return session
    if record.get("agentId"):
        return f"agent-{record['agentId']}"
    roots: dict[str, str] = assembler.extra.setdefault("sidechain_roots", {})
    uuid = str(record.get("uuid") or "")
    root = roots.get(str(record.get("parentUuid") or "")) or uuid
    roots[uuid] = root
    while len(roots) > SIDECHAIN_MEMORY:
        roots.pop(next(iter(roots)))
    return f"agent-{root.replace('-', '')[:8]}"


def handle_record(
    assembler: TurnAssembler, line_no: int, record: dict[str, Any], subagent_id: str | None
) -> None:
    kind = record.get("type")
    message = record.get("message")
    if kind not in ("user", "assistant") or not isinstance(message, dict):
        return
    if record.get("isApiErrorMessage") or message.get("model") == "<synthetic>":
        return
    session = _session_of(assembler, record, subagent_id)
    if not session:
        session = "unknown"
    parent = record.get("parentUuid")
    if parent is None and session.startswith("agent-"):
        started: list[str] = assembler.extra.setdefault("started", [])
        if session not in started:
            started.append(session)
            parent = record.get("sessionId") or None
    workdir = str(record.get("cwd") or assembler.extra.get("cwd") or "")
    assembler.extra["cwd"] = workdir
    start = partial(
        assembler.start,
        session_id=session,
        turn_uuid=_unique_uuid(assembler, record, session, line_no),
        parent_uuid=parent,
        ts=iso_utc(record.get("timestamp")),
        role=str(message.get("role") or kind),
        workdir=workdir,
    )
    if kind == "assistant":
        key = f"{session}\x00{message.get('id') or record.get('uuid')}"
        turn = assembler.reopen(key) or start(open_key=key)
        add_assistant_content(
            assembler,
            turn,
            message.get("content"),
            tool_call_type="tool_use",
            arguments_key="input",
        )
        return
    content = message.get("content")
    has_prompt = isinstance(content, str) or any(
        kind != "tool_result" for kind, _ in content_parts(content)
    )
    if has_prompt and not record.get("isMeta"):
        assembler.close()  # a human prompt ends the assistant message in progress
    turn = start()
    note = "compaction" if record.get("isCompactSummary") else None
    _user_blocks(assembler, turn, content, skip_text=bool(record.get("isMeta")), note=note)


def _unique_uuid(
    assembler: TurnAssembler, record: dict[str, Any], session: str, line_no: int
) -> str:
    """The record's uuid; `<uuid or session>:<line>` when it is missing or was just used
    (trimmed or hand-made files), since chunk ids are keyed by turn uuid."""
    uuid = str(record.get("uuid") or "")
    recent: list[str] = assembler.extra.setdefault("uuids", [])
    if not uuid or uuid in recent:
        uuid = f"{uuid or session}:{line_no}"
    recent.append(uuid)
    del recent[:-UUID_MEMORY]
    return uuid


def _user_blocks(
    assembler: TurnAssembler, turn: Any, content: Any, *, skip_text: bool, note: str | None
) -> None:
    if isinstance(content, str):
        if not skip_text:
            assembler.add(turn, "text", clean_user_text(content), note=note)
        return
    for kind, item in content_parts(content):
        if kind == "tool_result":
            call_id = item.get("tool_use_id")
            text = _persisted_preview(flatten_content(item.get("content")))
            assembler.add(
                turn,
                "tool_result",
                text,
                tool_name=assembler.tool_name(call_id),
                tool_use_id=call_id,
            )
        elif skip_text:
            continue
        elif kind == "text":
            assembler.add(turn, "text", clean_user_text(str(item.get("text") or "")), note=note)
        elif kind == "image":
            assembler.add(turn, "text", flatten_content([item]), note=note)


def _persisted_preview(text: str) -> str:
    """`<persisted-output>` wrapper off; its text says where the full output was saved."""
    if "<persisted-output>" not in text:
        return text
    return text.replace("<persisted-output>", "").replace("</persisted-output>", "").strip()

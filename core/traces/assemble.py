"""Building turns from records, with the state that lets a later read continue where this one ended.

Every source feeds records in file order to a `TurnAssembler`. It keeps, per session, the next seq
number (only turns that end up with a non-blank block take one), the one *open* turn that later
records may still add blocks to (Claude's assistant message split over several records, Codex's run
of assistant items), and the recent tool-call names for back-filling tool results. All of it goes
into the resume token (`carry()`), so reading a file in two halves gives the same turns as reading
it whole: a turn still open at the end of the first half comes back in the second with the same
turn_uuid and seq and its earlier blocks at the same indices, followed by the new ones.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from funes.model import Block, Turn
from funes.traces.guard import clean, optional_text
from funes.traces.guard import text as as_text
from funes.traces.text import content_parts, elide_payloads, flatten_content, render_tool_input

# A turn still open at the end of a read travels in the resume token as these fields.
_TURN_FIELDS = [f.name for f in fields(Turn) if f.name != "blocks"]
_BLOCK_FIELDS = [f.name for f in fields(Block)]

# How many tool-call ids → names are remembered across reads (results follow their calls closely).
TOOL_NAME_MEMORY = 512


class TurnAssembler:
    def __init__(self, harness: str, source_path: str, carry: dict[str, Any] | None = None):
        self.harness = harness
        self.source_path = clean(source_path)  # a file name need not be UTF-8
        self.turns: list[Turn] = []  # what this read emits, in emission (= seq) order
        # What a record holding many messages could not read of them ("where: why; skipped").
        self.warnings: list[str] = []
        self._emitted: set[int] = set()
        carry = carry or {}
        self.next_seq: dict[str, int] = dict(carry.get("next_seq", {}))
        self.tool_names: dict[str, str] = dict(carry.get("tool_names", {}))
        self.extra: dict[str, Any] = dict(carry.get("extra", {}))  # the source's own state
        self.open_key: str | None = carry.get("open_key")
        self.open: Turn | None = _turn_from_json(carry["open"]) if carry.get("open") else None

    def start(
        self,
        *,
        session_id: str,
        turn_uuid: str,
        parent_uuid: str | None,
        ts: str,
        role: str,
        workdir: str,
        open_key: str | None = None,
    ) -> Turn:
        """A new turn. With `open_key` it becomes the open turn (replacing any other).

        Every field is coerced to a string here, whatever type the record held (`"parentUuid":
        5`, a list as a session id): the store's columns are strings, and one row of another
        type would fail the write of every row in its batch."""
        turn = Turn(
            session_id=as_text(session_id),
            turn_uuid=as_text(turn_uuid),
            parent_uuid=optional_text(parent_uuid),
            seq=-1,
            ts=as_text(ts),
            role=as_text(role),
            workdir=as_text(workdir),
            harness=self.harness,
            source_path=self.source_path,
        )
        if open_key is not None:
            self.open, self.open_key = turn, open_key
        return turn

    def reopen(self, open_key: str) -> Turn | None:
        """The open turn if it was opened under `open_key`."""
        return self.open if self.open is not None and self.open_key == open_key else None

    def close(self) -> None:
        self.open, self.open_key = None, None

    def add(
        self,
        turn: Turn,
        block_type: str,
        text: Any,
        *,
        tool_name: Any = None,
        tool_use_id: Any = None,
        note: str | None = None,
    ) -> None:
        """Append a block unless blank; the turn's first kept block gives it its seq. Text that
        is not a string (a list or object where a record should hold text) is flattened."""
        if text is not None and not isinstance(text, str):
            text = flatten_content(text)
        if not text or not text.strip():
            return
        block = Block(
            block_type,
            elide_payloads(clean(text)),
            optional_text(tool_name),
            optional_text(tool_use_id),
            optional_text(note),
        )
        turn.blocks.append(block)
        if turn.seq < 0:
            turn.seq = self.next_seq.get(turn.session_id, 0)
            self.next_seq[turn.session_id] = turn.seq + 1
        if id(turn) not in self._emitted:
            self._emitted.add(id(turn))
            self.turns.append(turn)

    def remember_tool(self, tool_use_id: Any, name: Any) -> None:
        tool_use_id, name = optional_text(tool_use_id), optional_text(name)
        if not tool_use_id or not name:
            return
        self.tool_names.pop(tool_use_id, None)
        self.tool_names[tool_use_id] = name
        while len(self.tool_names) > TOOL_NAME_MEMORY:
            self.tool_names.pop(next(iter(self.tool_names)))

    def tool_name(self, tool_use_id: Any) -> str | None:
        key = optional_text(tool_use_id)
        return self.tool_names.get(key) if key else None

    def carry(self) -> dict[str, Any]:
        return {
            "next_seq": self.next_seq,
            "tool_names": self.tool_names,
            "extra": self.extra,
            "open_key": self.open_key,
            "open": _turn_to_json(self.open) if self.open is not None else None,
        }


def add_assistant_content(
    assembler: TurnAssembler,
    turn: Turn,
    content: Any,
    *,
    tool_call_type: str,
    arguments_key: str,
) -> None:
    """Text, thinking and tool calls of an Anthropic-shaped assistant message (Claude Code,
    pi); the agents differ only in what they call a tool call and its arguments."""
    if isinstance(content, str):
        assembler.add(turn, "text", content)
        return
    for kind, item in content_parts(content):
        if kind == "text":
            assembler.add(turn, "text", item.get("text"))
        elif kind == "thinking":
            assembler.add(turn, "thinking", item.get("thinking"))
        elif kind == tool_call_type:
            name, call_id = item.get("name"), item.get("id")
            assembler.remember_tool(call_id, name)
            text = render_tool_input(item.get(arguments_key)) or str(name or "")
            assembler.add(turn, "tool_use", text, tool_name=name, tool_use_id=call_id)


def text_digest(text: str) -> str:
    """What a resume token keeps of a text it only compares with a later one (a prompt written
    twice, a reasoning a message repeats): a hash, never the words, which rest on disk."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# Texts a source keeps in its own state only to compare with later ones (Codex's recent
# prompts, Copilot's last reasoning): kept as `text_digest`s; older resume points hold words.
_COMPARED_TEXTS = ("prompts", "reasoning")
_DIGEST = re.compile(r"[0-9a-f]{16}")


def clean_resume_token(token: dict[str, Any], clean: Callable[[str], str]) -> dict[str, Any]:
    """`token` (a source's resume token, its assembler's state under "carry") as it may rest on
    disk: the text of each block of the open turn passed through `clean` (redaction, private
    spans), the texts a source only compares replaced by their digests. The open turn comes back
    from it cleaned, and cleaning cleaned text changes nothing, so the rows stored from it are
    the same; a digest compares as the words did."""
    carry = token.get("carry")
    if not isinstance(carry, dict):
        return token
    carry = dict(carry)
    opened = carry.get("open")
    if isinstance(opened, dict) and isinstance(opened.get("blocks"), list):
        text_at = _BLOCK_FIELDS.index("text")
        blocks = []
        for block in opened["blocks"]:
            if isinstance(block, list) and len(block) > text_at and isinstance(block[text_at], str):
                block = [*block[:text_at], clean(block[text_at]), *block[text_at + 1 :]]
            blocks.append(block)
        carry["open"] = {**opened, "blocks": blocks}
    extra = carry.get("extra")
    if isinstance(extra, dict) and any(key in extra for key in _COMPARED_TEXTS):
        extra = dict(extra)
        for key in _COMPARED_TEXTS:
            value = extra.get(key)
            if isinstance(value, list):
                extra[key] = [_as_digest(v) for v in value]
            elif isinstance(value, str):
                extra[key] = _as_digest(value)
        carry["extra"] = extra
    return {**token, "carry": carry}


def _as_digest(value: Any) -> Any:
    if not isinstance(value, str) or _DIGEST.fullmatch(value):
        return value
    return text_digest(value)


def _turn_to_json(turn: Turn) -> dict[str, Any]:
    """Every field of the turn; each block as the list of its fields, in order."""
    data = {name: getattr(turn, name) for name in _TURN_FIELDS}
    data["blocks"] = [[getattr(b, name) for name in _BLOCK_FIELDS] for b in turn.blocks]
    return data


def _turn_from_json(data: dict[str, Any]) -> Turn:
    blocks = [Block(*fields) for fields in data.get("blocks", [])]
    return Turn(
        session_id=data["session_id"],
        turn_uuid=data["turn_uuid"],
        parent_uuid=data.get("parent_uuid"),
        seq=int(data.get("seq", -1)),
        ts=data.get("ts", ""),
        role=data.get("role", ""),
        workdir=data.get("workdir", ""),
        harness=data.get("harness", ""),
        source_path=data.get("source_path", ""),
        blocks=blocks,
    )

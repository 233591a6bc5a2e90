"""The one shape every agent's transcript is parsed into: sessions of turns made of blocks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

BlockType = Literal["text", "thinking", "tool_use", "tool_result"]
BLOCK_TYPES: tuple[str, ...] = ("text", "thinking", "tool_use", "tool_result")

Harness = Literal[
    "claude_code",
    "codex",
    "pi",
    "hermes",
    "gemini",
    "qwen",
    "opencode",
    "copilot",
    "parquet",
]
# The agents funes serves, by the name people type, and the harness facet their turns are
# stored under: one line per agent (with its trace source, plugin and installer, that is all
# adding an agent takes). Every other list of agents is derived from this one.
AGENT_HARNESS: dict[str, str] = {
    "claude": "claude_code",
    "codex": "codex",
    "pi": "pi",
    "hermes": "hermes",
    "gemini": "gemini",
    "qwen": "qwen",
    "opencode": "opencode",
    "copilot": "copilot",
}
AGENTS: tuple[str, ...] = tuple(AGENT_HARNESS)
# Every stored facet: the agents', and imported Parquet shards.
HARNESSES: tuple[str, ...] = (*AGENT_HARNESS.values(), "parquet")

# What users type on the command line → the stored facet.
HARNESS_ALIASES: dict[str, str] = {
    **{harness: harness for harness in HARNESSES},
    **AGENT_HARNESS,
    "claude-code": "claude_code",
}

# What `--harness` offers (the aliases without the dashed spelling).
HARNESS_CHOICES: tuple[str, ...] = ("claude", *HARNESSES)


def normalise_harness(name: str) -> str:
    """Map a user-facing agent name to the stored harness facet, or raise ValueError."""
    key = name.strip().lower()
    if key not in HARNESS_ALIASES:
        known = ", ".join(sorted({*HARNESS_ALIASES} - {"claude_code", "claude-code"}))
        raise ValueError(f"unknown agent {name!r}: expected one of {known}")
    return HARNESS_ALIASES[key]


@dataclass(slots=True)
class Block:
    block_type: str  # one of BLOCK_TYPES
    text: str
    tool_name: str | None = None
    tool_use_id: str | None = None
    # Marks text that is not the speaker's own words but still worth keeping, e.g. a
    # compaction summary ("compaction") or a subagent prompt ("subagent").
    note: str | None = None


@dataclass(slots=True)
class Turn:
    session_id: str
    turn_uuid: str
    parent_uuid: str | None
    seq: int  # index among retained turns of the session, from 0
    ts: str  # ISO-8601 UTC, e.g. 2026-01-02T03:04:05Z ("" when unknown)
    role: str  # user | assistant | system | tool (as the source says)
    workdir: str  # the recorded cwd, verbatim ("" when unknown)
    harness: str  # one of HARNESSES
    source_path: str
    blocks: list[Block] = field(default_factory=list)


@dataclass(slots=True)
class Provenance:
    """Where a passage comes from: what a stored chunk and a recalled hit both carry."""

    session_id: str
    turn_uuid: str
    seq: int
    ts: str
    role: str
    block_type: str
    tool_name: str | None
    harness: str
    workdir: str
    repo: str
    source_path: str


@dataclass(slots=True)
class Chunk(Provenance):
    """One split of one block of one turn: the unit that is embedded, searched and stored."""

    id: str
    text: str
    parent_uuid: str | None
    block_idx: int
    split_idx: int
    # The last words before a tool call or tool output chunk (see funes.index.lead_in): searched
    # with the text, never shown, never pushed.
    lead_in: str = ""
    # The id the agent gave the call this block makes or answers: pairs a call with its output
    # when calls made together answer out of order (None where the agent records none).
    tool_use_id: str | None = None

"""What recall returns: hits with exact provenance, their neighbours, and what ran."""

from __future__ import annotations

from dataclasses import dataclass, field

from funes.model import Provenance


@dataclass(slots=True)
class Neighbour:
    """An adjacent chunk of the hit's session (a different turn within the seq window)."""

    turn_uuid: str
    seq: int
    role: str
    block_type: str
    text: str


@dataclass(slots=True)
class Hit(Provenance):
    id: str
    text: str
    score: float
    neighbours: list[Neighbour] = field(default_factory=list)
    # The memory it came from (its label), when several were recalled at once.
    memory: str = ""
    # Which split of its block the passage is (0: the block's start); a later split begins
    # inside the overlap with the one before, so the formats trim its first partial word.
    split_idx: int = 0
    # How output names its session: a prefix no other session of its memory has
    # (funes.retrieve.handles); "" until recall sets it.
    handle: str = ""
    # The other half of a tool unit (funes.retrieve.places): the call for a hit that is a
    # tool's output, the output for a hit that is a call; None for anything else.
    partner: Neighbour | None = None


@dataclass(slots=True)
class RecallResult:
    query: str
    hits: list[Hit]
    memory_label: str
    # Which second pass re-scored the pool: "cross-encoder", "minilm" or "none".
    second_pass: str = "none"
    # One line each, said to the reader: a failed leg, a degraded memory, a skipped second pass.
    notes: list[str] = field(default_factory=list)
    # The label of the memory a command reads when it names none, if it was read: a hit from it
    # gets a `funes get` line without `--memory`.
    default_memory: str = ""
    # The exact text every hit holds (`--has`), which their snippets show; "" when none.
    exact: str = ""
    # A filter named nothing in the memory and was dropped (funes.retrieve.exact): the hits
    # match the query's words only, and the page shows them briefly.
    slipped: bool = False
    # A subagent session among the hits → (its parent's handle, the task it was given).
    subagents: dict[str, tuple[str, str]] = field(default_factory=dict)

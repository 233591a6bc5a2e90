"""Which local memory an agent's turns are indexed into: the folder it is bound to by
`funes add <agent> PATH`, else the default local memory (a Hub-bound agent indexes locally and
publishes from there). Standard library only: the hook worker imports it before lancedb."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from funes.memory_spec import folder_memory
from funes.model import AGENT_HARNESS
from funes.paths import (
    claude_home,
    codex_home,
    copilot_home,
    gemini_dir,
    hermes_home,
    opencode_db,
    pi_agent_dir,
    qwen_home,
)

# Stored harness facet → the agent name `funes add` records.
AGENT_OF_HARNESS = {harness: agent for agent, harness in AGENT_HARNESS.items()}


def index_target(agent: str) -> Path | None:
    """The local folder memory `agent` is bound to, or None (the default local memory)."""
    from funes.integrations.agents import bound_memory

    return folder_memory(bound_memory(agent) if agent else None)


def agent_of_transcript(path: Path) -> str:
    """Which agent wrote the transcript at `path`, from where it lies ('' when unknown)."""
    roots = (
        ("claude", claude_home()),
        ("codex", codex_home()),
        ("pi", pi_agent_dir()),
        ("hermes", hermes_home()),
        ("gemini", gemini_dir()),
        ("qwen", qwen_home()),
        ("opencode", opencode_db().parent),
        ("copilot", copilot_home()),
    )
    path = Path(path).absolute()
    for agent, root in roots:
        if path.is_relative_to(Path(root).absolute()):
            return agent
    return ""


def group_by_target(paths: Iterable[Path]) -> dict[Path | None, list[Path]]:
    """Transcripts grouped by the local memory their agent's turns go to."""
    groups: dict[Path | None, list[Path]] = {}
    for path in paths:
        groups.setdefault(index_target(agent_of_transcript(path)), []).append(path)
    return groups


def harness_target(harness: str) -> Path | None:
    return index_target(AGENT_OF_HARNESS.get(harness, harness))

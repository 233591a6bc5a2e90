"""Recall: search a memory, re-rank, and return passages with exact provenance.

The public API; each name lives in a small module of this package.
"""

from funes.retrieve.formats import format_human, format_json, recall_json
from funes.retrieve.get import (
    GetResult,
    TurnNotFound,
    format_get_agent,
    format_get_human,
    format_get_json,
    get_turns,
)
from funes.retrieve.page import format_agent
from funes.retrieve.pipeline import RecallError, recall
from funes.retrieve.second_pass import second_pass_status
from funes.retrieve.types import Hit, Neighbour, RecallResult

__all__ = [
    "GetResult",
    "Hit",
    "Neighbour",
    "RecallError",
    "RecallResult",
    "TurnNotFound",
    "format_agent",
    "format_get_agent",
    "format_get_human",
    "format_get_json",
    "format_human",
    "format_json",
    "get_turns",
    "recall",
    "recall_json",
    "second_pass_status",
]

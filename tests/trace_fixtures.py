"""Helpers for the trace-source tests: the corpus, and reading a unit as the indexer does."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from funes.model import Turn
from funes.traces import source_for
from funes.traces.base import ReadResult, Resume
from funes.traces.detect import classify

CORPUS = Path("/work/shared/corpus")
NOT_TRANSCRIPTS = ("README.md", ".meta.json", ".db-wal", ".db-shm")


def corpus_files() -> list[Path]:
    return sorted(
        p for p in CORPUS.rglob("*") if p.is_file() and not p.name.endswith(NOT_TRANSCRIPTS)
    )


def read_unit(path: Path, resume: Resume | None = None) -> ReadResult:
    harness = classify(path)
    assert harness is not None, f"no source owns {path}"
    return source_for(harness).read(path, resume)


def json_lines(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of a JSONL file, splitting the `}{` corruption by hand."""
    records = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        raw = raw.strip()
        if not raw:
            continue
        try:
            records.append(json.loads(raw))
        except json.JSONDecodeError:  # two objects run together: split at the seam
            records.extend(json.loads(piece) for piece in raw.replace("}{", "}\n{").splitlines())
    return records


def block_kinds(turns: list[Turn]) -> Counter[str]:
    return Counter(block.block_type for turn in turns for block in turn.blocks)


def latest_by_uuid(turns: list[Turn]) -> dict[tuple[str, str], Turn]:
    """Merge the turns of several reads: a re-emitted turn replaces its earlier copy."""
    merged: dict[tuple[str, str], Turn] = {}
    for turn in turns:
        merged[(turn.session_id, turn.turn_uuid)] = turn
    return merged

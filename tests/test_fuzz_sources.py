"""The fuzz suite: every agent's real transcript, damaged the ways a broken writer or a hostile
hand damages one (a value of another type, a line cut short, a value nested thousands deep, a
huge string, text UTF-8 cannot encode), read and indexed.

The properties: no exception escapes a source or the indexer; every turn a source gives holds
the types the store keeps (Arrow takes every row); and in an index run over every agent's
transcripts where one was damaged, every session of the others is stored whole.

Sized for CI (two cores, the whole suite in about ten minutes): a fixed number of examples,
derandomized so every run tries the same ones.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fuzz_fixtures import (
    FUZZED,
    REPLACEMENTS,
    damage_lines,
    damage_parquet,
    damage_row,
    place_all,
    place_one,
    truncate_line,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_recall_all_agents import AGENT_TRANSCRIPTS

from funes.index.chunking import chunk_turn
from funes.index.indexer import index
from funes.index.store import ChunkStore, chunks_schema
from funes.model import Turn
from funes.traces import source_for
from funes.traces.detect import classify

DATABASES = {"hermes", "opencode"}
SETTINGS = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

any_damage = st.tuples(
    st.sampled_from(FUZZED),
    st.sampled_from(["value", "value", "value", "truncate"]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.sampled_from(REPLACEMENTS),
)
damage = st.tuples(
    st.sampled_from(sorted(AGENT_TRANSCRIPTS)),
    st.sampled_from(["value", "value", "value", "truncate"]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.sampled_from(REPLACEMENTS),
)


def apply(units: dict[str, Path], harness: str, how: str, pick: int, where: int, new: Any) -> str:
    """Damage the transcript of `harness` among `units`; returns the damaged place."""
    unit = units[harness]
    if harness in DATABASES:
        return damage_row(unit, harness, pick, where, new)
    if harness == "parquet":
        return damage_parquet(unit, pick, where, new)
    if how == "truncate":
        return truncate_line(unit, pick, where)
    return damage_lines(unit, pick, where, new)


def typed_right(turns: list[Turn]) -> None:
    """Every field holds what the store's column holds, and Arrow takes every row."""
    chunks = [chunk for turn in turns for chunk in chunk_turn(turn, "")]
    for turn in turns:
        for name in ("session_id", "turn_uuid", "ts", "role", "workdir", "source_path"):
            assert isinstance(getattr(turn, name), str), (name, getattr(turn, name))
        assert turn.parent_uuid is None or isinstance(turn.parent_uuid, str)
        for block in turn.blocks:
            assert isinstance(block.text, str)
            for name in ("tool_name", "tool_use_id", "note"):
                value = getattr(block, name)
                assert value is None or isinstance(value, str), (name, value)
    if chunks:
        from funes.index.store import chunks_to_arrow

        schema = chunks_schema(4, "m", "h")
        chunks_to_arrow(chunks, np.zeros((len(chunks), 4), dtype=np.float32), schema)


@pytest.fixture(scope="module")
def whole_sessions() -> Iterator[dict[tuple[str, str], set[str]]]:
    """Chunk ids per (harness, session) when every transcript is intact."""
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as env:
        env.setenv("FUNES_HOME", str(Path(tmp) / "home"))
        folder = Path(tmp) / "transcripts"
        place_all(folder)
        report = index(paths=[folder], memory_path=Path(tmp) / "memory", maintain=False)
        assert report.warnings == []
        yield stored_sessions(Path(tmp) / "memory")


def stored_sessions(memory: Path) -> dict[tuple[str, str], set[str]]:
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    rows = ChunkStore.open(memory).scan(["id", "harness", "session_id"]).to_pylist()
    for row in rows:
        found[(row["harness"], row["session_id"])].add(row["id"])
    return found


@settings(SETTINGS, max_examples=400)
@given(any_damage)
def test_a_damaged_transcript_never_raises_and_gives_only_storable_turns(
    case: tuple[str, str, int, int, Any],
) -> None:
    harness, how, pick, where, new = case
    with tempfile.TemporaryDirectory() as tmp:
        unit = place_all_one(Path(tmp), harness)
        apply({harness: unit}, harness, how, pick, where, new)
        result = source_for(classify(unit) or harness.split(":")[0]).read(unit, None)
        typed_right(result.turns)
        # Read again from where the first read stopped: the resume token survives JSON.
        again = source_for(classify(unit) or harness.split(":")[0]).read(
            unit, json.loads(json.dumps(result.resume))
        )
        typed_right(again.turns)


def place_all_one(folder: Path, harness: str) -> Path:
    return place_one(harness, folder / harness)


@settings(SETTINGS, max_examples=50)
@given(damage)
def test_one_damaged_transcript_leaves_every_other_session_stored_whole(
    whole_sessions: dict[tuple[str, str], set[str]], case: tuple[str, str, int, int, Any]
) -> None:
    harness, how, pick, where, new = case
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as env:
        env.setenv("FUNES_HOME", str(Path(tmp) / "home"))
        units = place_all(Path(tmp) / "transcripts")
        damaged = apply(units, harness, how, pick, where, new)
        report = index(paths=[Path(tmp) / "transcripts"], memory_path=Path(tmp) / "memory")
        stored = stored_sessions(Path(tmp) / "memory")
        for (stored_harness, session), ids in whole_sessions.items():
            if stored_harness != harness:
                assert stored.get((stored_harness, session), set()) == ids, (session, damaged)
        assert report.units_read == len(units)

"""Chunking: stable ids, bounded windows, overlap that `stitch` removes exactly."""

from __future__ import annotations

import random

from funes.index.chunking import MAX_CHARS, chunk_id, chunk_turn, split_text, stitch
from funes.model import Block, Turn


def _turn(blocks: list[Block], turn_uuid: str = "t1") -> Turn:
    return Turn(
        session_id="s1",
        turn_uuid=turn_uuid,
        parent_uuid=None,
        seq=0,
        ts="2026-01-01T00:00:00Z",
        role="assistant",
        workdir="/w",
        harness="claude_code",
        source_path="/x.jsonl",
        blocks=blocks,
    )


def _prose(n_words: int, seed: int) -> str:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "lance", "vector", "index", "recall", "turn"]
    lines = []
    line: list[str] = []
    for _ in range(n_words):
        line.append(rng.choice(words) + str(rng.randint(0, 99)))
        if rng.random() < 0.08:
            lines.append(" ".join(line))
            line = []
    lines.append(" ".join(line))
    return "\n".join(lines)


def test_short_text_is_one_chunk_and_long_text_windows_stay_bounded() -> None:
    assert split_text("  hello  ") == ["hello"]
    assert split_text("   ") == []
    long = _prose(2000, seed=1)
    pieces = split_text(long)
    assert len(pieces) > 5
    assert all(0 < len(p) <= MAX_CHARS for p in pieces)


def test_stitch_inverts_split_without_duplicating_the_overlap() -> None:
    for seed in range(20):
        text = _prose(300 + seed * 97, seed=seed)
        pieces = split_text(text)
        stitched = stitch(pieces)
        # Whitespace at a break may be normalised; the words and their order are exact.
        assert stitched.split() == text.split()
        assert len(stitched) <= len(text)


def test_unbroken_text_is_hard_split_and_stitched_exactly() -> None:
    text = "".join(random.Random(3).choice("abcdef0123456789") for _ in range(5000))
    pieces = split_text(text)
    assert all(len(p) <= MAX_CHARS for p in pieces)
    assert stitch(pieces) == text


def test_chunk_ids_depend_only_on_coordinates() -> None:
    first = chunk_turn(_turn([Block("text", "first words")]))
    grown = chunk_turn(_turn([Block("text", "first words"), Block("text", "more words")]))
    assert first[0].id == grown[0].id == chunk_id("s1", "t1", 0, 0)
    assert len({c.id for c in grown}) == 2
    other_turn = chunk_turn(_turn([Block("text", "first words")], turn_uuid="t2"))
    assert other_turn[0].id != first[0].id


def test_tool_blocks_carry_the_tool_name_on_their_first_split_only() -> None:
    long_output = _prose(600, seed=7)
    chunks = chunk_turn(
        _turn(
            [
                Block("tool_use", "ls -la", tool_name="Bash"),
                Block("tool_result", long_output, tool_name="Bash"),
                Block("text", "   "),
            ]
        )
    )
    assert chunks[0].text == "[tool_use Bash] ls -la"
    results = [c for c in chunks if c.block_type == "tool_result"]
    assert results[0].text.startswith("[tool_result Bash] ")
    assert all(not c.text.startswith("[tool_result") for c in results[1:])
    assert [c.split_idx for c in results] == list(range(len(results)))
    assert all(c.block_idx == 1 for c in results)
    assert all(c.block_type != "text" for c in chunks)  # the blank block makes no chunk

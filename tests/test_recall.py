"""recall(): the right passage first, filters inside the search, neighbours, degraded legs."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_fixtures import build_memory, sample_turns

from funes.index.store import MemoryNotFound
from funes.retrieve import format_agent, recall
from funes.retrieve.recency import parse_ts, recency_weight


@pytest.fixture(autouse=True)
def first_pass_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # The second pass has its own tests (test_recall_second_pass.py); these pin the first pass.
    monkeypatch.setenv("FUNES_RERANKER", "none")


@pytest.fixture
def memory() -> Path:
    return build_memory(sample_turns())


def test_the_turn_that_states_the_answer_comes_first_with_its_provenance(memory: Path) -> None:
    result = recall("why did we drop the redis cache")
    top = result.hits[0]
    assert (top.session_id, top.turn_uuid, top.seq) == ("s-shop-0001", "u2", 1)
    assert (top.harness, top.role, top.block_type) == ("claude_code", "assistant", "text")
    assert top.ts == "2026-03-01T10:00:00Z"
    assert top.workdir == "/home/dev/shop"
    assert top.source_path == "/transcripts/s-shop-0001.jsonl"
    assert "stale prices" in top.text
    assert result.memory_label == str(memory)


def test_filters_apply_inside_the_search(memory: Path) -> None:
    assert {h.harness for h in recall("backup bucket cache", harness="codex").hits} == {"codex"}
    assert {h.harness for h in recall("redis cache", harness="claude").hits} == {"claude_code"}
    tool = recall("pytest cart", block_type="tool_use").hits
    assert [h.turn_uuid for h in tool] == ["u4"] and tool[0].tool_name == "Bash"
    assert {h.session_id for h in recall("the", project="infra").hits} == {"s-infra-0002"}
    assert {h.session_id for h in recall("cache backup", session="s-infra").hits} == {
        "s-infra-0002"
    }
    old = recall("backup cache checkout", until="2025-12-31").hits
    assert old and {h.ts[:4] for h in old} == {"2025"}
    new = recall("backup cache checkout", since="2026-01-01").hits
    assert new and {h.ts[:4] for h in new} == {"2026"}


def test_bad_filters_are_user_errors(memory: Path) -> None:
    with pytest.raises(ValueError, match="unknown agent"):
        recall("x", harness="cursor")
    with pytest.raises(ValueError, match="can't read the time"):
        recall("x", since="last tuesday")
    with pytest.raises(ValueError, match="unknown block type"):
        recall("x", block_type="image")


def test_a_reply_comes_with_the_prompt_that_asked_for_it(memory: Path) -> None:
    # u2 answers u1; u3 is the user's next prompt, not part of u2's turn.
    hit = recall("why did we drop the redis cache", k=1).hits[0]
    assert [(n.turn_uuid, n.seq, n.role) for n in hit.neighbours] == [("u1", 0, "user")]
    assert recall("why did we drop the redis cache", k=1, neighbors=0).hits[0].neighbours == []


def test_nothing_matching_says_no_results(memory: Path) -> None:
    result = recall("redis cache", harness="hermes")
    assert result.hits == []
    assert format_agent(result).rstrip().endswith("no results")


def test_without_a_memory_recall_raises_memory_not_found() -> None:
    with pytest.raises(MemoryNotFound):
        recall("anything")


def test_a_missing_full_text_index_degrades_to_vectors_and_says_so(tmp_path: Path) -> None:
    build_memory(sample_turns(), fts=False)
    result = recall("redis cache stale prices")
    if any("full-text search failed" in n for n in result.notes):
        assert result.hits, "the vector leg must still answer"
        assert result.hits[0].turn_uuid == "u2"
    else:  # Lance may answer full-text queries by a flat scan when there is no index
        assert result.hits[0].turn_uuid == "u2"


def test_a_memory_built_with_an_unavailable_model_still_answers_by_full_text(
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    from funes.index.chunking import chunk_turn
    from funes.index.embed import load_embedder
    from funes.index.store import ChunkStore
    from funes.paths import local_memory_dir

    real = load_embedder()
    foreign = replace(real, model_id="someone/model-not-in-any-cache")
    store = ChunkStore.create_or_open(local_memory_dir(), foreign)
    chunks = [c for t in sample_turns() for c in chunk_turn(t)]
    store.add(chunks, real.encode([c.text for c in chunks]))
    store.ensure_indexes()

    result = recall("redis cache stale prices")
    assert result.hits[0].turn_uuid == "u2"
    assert any("vector search failed" in n and "full-text" in n for n in result.notes)
    assert "note: vector search failed" in format_agent(result)


def test_recency_is_bounded_and_ignores_unknown_times() -> None:
    now = parse_ts("2026-03-01T00:00:00Z")
    assert now is not None
    fresh = recency_weight("2026-03-01T00:00:00Z", now=now, half_life_days=90)
    ancient = recency_weight("2016-03-01T00:00:00Z", now=now, half_life_days=90)
    assert fresh == pytest.approx(1.0)
    assert 0.89 < ancient < 0.91  # an old exact answer keeps 90% of its score
    assert recency_weight("not a time", now=now, half_life_days=90) == 1.0
    assert recency_weight("2016-03-01T00:00:00Z", now=now, half_life_days=0) == 1.0


def test_recency_breaks_ties_towards_the_newer_passage() -> None:
    from recall_fixtures import turn

    text = "The deploy key rotates every quarter."
    build_memory(
        [
            turn("old-session", "a", 0, text, ts="2024-01-01T00:00:00Z"),
            turn("new-session", "b", 0, text, ts="2026-02-01T00:00:00Z"),
        ]
    )
    assert recall("deploy key rotation").hits[0].session_id == "new-session"


def test_a_passage_repeated_in_a_forked_session_is_returned_once() -> None:
    from recall_fixtures import turn

    words = "The flaky upload test failed because the fixture reused a port across workers."
    build_memory(
        [
            *sample_turns(),
            turn("s-parent-01", "p1", 0, words),
            turn("s-fork-02", "f1", 0, words, ts="2026-03-02T10:00:00Z"),
            turn("s-fork-02", "f2", 1, "Then we gave every worker its own port range."),
        ]
    )
    hits = recall("why did the flaky upload test fail", k=5).hits
    texts = [" ".join(h.text.split()) for h in hits]
    assert texts.count(words) == 1
    assert len(texts) == len(set(texts))

"""Weak results said plainly: when no session's best passages hold the question's words, the
agent format (CLI and MCP) says so in one note line, and `--json` and the page's search API
carry the same words as `weak_note` (null when the results are not weak)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from recall_fixtures import build_memory, make_hit, sample_turns

from funes.cli import main
from funes.inspect import webapi
from funes.retrieve import format_agent, recall_json
from funes.retrieve.types import Neighbour, RecallResult
from funes.retrieve.weak import WEAK_COVERAGE, weak_note

NOTE = (
    "note: weak results: no session shown holds more than 1 of the question's 4 key words; "
    "the memory may not have the answer"
)


def test_the_weak_note_line_is_pinned() -> None:
    hits = [make_hit("We dropped redis."), make_hit("Prices come from postgres.", turn_uuid="t-9")]
    result = RecallResult("purple elephant redis sonata", hits, "/m", "minilm")
    lines = format_agent(result).splitlines()
    assert lines[1] == NOTE and lines[2].startswith("== 01234567")
    assert recall_json(result)["weak_note"] == NOTE.removeprefix("note: ")


def test_a_question_whose_words_meet_in_one_session_is_not_weak() -> None:
    """Two words in the hit, two in its neighbour (the prompt that asked): together they hold
    the question, so no note."""
    hit = make_hit(
        "Dropped the redis cache.",
        neighbours=[Neighbour("t-41", 6, "user", "text", "why is checkout so slow")],
    )
    query = "why did we drop the redis cache from checkout slow path"
    assert weak_note(query, [hit]) is None
    result = RecallResult(query, [hit], "/m", "minilm")
    assert "weak results" not in format_agent(result)
    assert recall_json(result)["weak_note"] is None


def test_words_scattered_over_sessions_do_not_count_as_a_match() -> None:
    words = ["alpha", "bravo", "charlie", "delta"]
    hits = [make_hit(f"only {w} here", session_id=f"s-{w}", turn_uuid=w) for w in words]
    assert weak_note(" ".join(words), hits) is not None
    same = [make_hit(f"only {w} here", turn_uuid=w) for w in words]  # one session
    assert weak_note(" ".join(words), same) is None
    assert WEAK_COVERAGE == 0.5  # the calibrated value (BENCHMARKS.md, "Weak results")


def test_cli_mcp_format_json_and_the_page_api_carry_the_note() -> None:
    build_memory(sample_turns())
    nonsense = "purple elephant quantum banana sonata"
    agent = CliRunner().invoke(main, ["recall", nonsense, "--format", "agent"])
    assert agent.exit_code == 0, agent.output
    (note,) = [line for line in agent.output.splitlines() if line.startswith("note: weak")]
    data = json.loads(CliRunner().invoke(main, ["recall", nonsense, "--json"]).output)
    assert data["hits"] and data["weak_note"] == note.removeprefix("note: ")
    assert webapi.search(None, {"q": nonsense})["weak_note"] == data["weak_note"]

    real = json.loads(
        CliRunner().invoke(main, ["recall", "why did we drop redis", "--json"]).output
    )
    assert real["hits"] and real["weak_note"] is None
    assert webapi.search(None, {"q": "why did we drop redis"})["weak_note"] is None

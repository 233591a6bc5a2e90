"""`funes recall` on the command line: formats, --json, errors as one line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from recall_fixtures import build_memory, sample_turns

from funes.cli import main


@pytest.fixture(autouse=True)
def first_pass_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")


def test_agent_format_when_not_a_terminal_with_a_runnable_get_line() -> None:
    memory = build_memory(sample_turns())
    out = CliRunner().invoke(main, ["recall", "why", "did", "we", "drop", "redis", "-k", "1"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    # The memory read by default goes unsaid on the page (`--json` names it).
    assert lines[0].startswith("funes recall: 1 place(s) in 1 session(s) (UTC)")
    assert str(memory) not in lines[0]
    assert lines[1] == "== s-shop-0 claude_code ~/shop"
    # The memory read by default needs no --memory: the short line runs as printed.
    place, get_line = lines[3].split(" → ")
    assert place == "#1 [2026-03-01 10:00] seq1 assistant"
    assert get_line == "funes get s-shop-0 1"
    get = CliRunner().invoke(main, get_line.split()[1:])
    assert get.exit_code == 0 and "s-shop-0001" in get.output and "← asked" in get.output
    assert "We dropped the redis cache" in get.output
    named = CliRunner().invoke(main, ["recall", "redis", "-k", "1", "--memory", str(memory)])
    assert f" → funes get --memory {memory} s-shop-0 1" in named.output


def test_json_output_and_filters() -> None:
    build_memory(sample_turns())
    out = CliRunner().invoke(
        main, ["recall", "backup", "--harness", "codex", "--since", "2025-01-01", "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["second_pass"] == "none"
    assert data["hits"] and {h["harness"] for h in data["hits"]} == {"codex"}
    assert data["hits"][0]["turn_uuid"] == "i1"


def test_human_format_on_request() -> None:
    build_memory(sample_turns())
    out = CliRunner().invoke(main, ["recall", "redis", "--format", "human", "-k", "1"])
    assert out.exit_code == 0
    assert "1. 2026-03-01 10:00 · claude_code · /home/dev/shop" in out.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["recall", "x", "--since", "someday"], "can't read the time 'someday'"),
        (["recall", "x"], "no memory to recall from yet — run `funes add <agent>`"),
    ],
)
def test_errors_are_one_line(args: list[str], message: str) -> None:
    if "--since" in args:
        build_memory(sample_turns())
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 1
    assert len(out.output.strip().splitlines()) == 1 and message in out.output


def test_a_query_past_the_cap_is_one_clear_line() -> None:
    from funes.retrieve.pipeline import MAX_QUERY_CHARS

    build_memory(sample_turns())
    result = CliRunner().invoke(main, ["recall", "x" * (MAX_QUERY_CHARS + 1)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: query too long: {MAX_QUERY_CHARS + 1:,} characters, at most "
        f"{MAX_QUERY_CHARS:,}; ask a question or give a few keywords"
    ]

"""get: whole turns back from chunks (splits stitched), and `funes get` on the command line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from recall_fixtures import LONG_TEXT, build_memory, sample_turns

from funes.cli import main
from funes.retrieve import TurnNotFound, get_turns


@pytest.fixture(autouse=True)
def memory() -> None:
    build_memory(sample_turns())


def test_a_split_turn_comes_back_whole_without_duplicated_overlap() -> None:
    result = get_turns("s-infra-0002", "i2", window=0)
    (turn,) = result.turns
    assert turn.seq == 1 and turn.role == "assistant" and turn.harness == "codex"
    assert [b.text for b in turn.blocks] == [LONG_TEXT]  # > 1200 chars: stored as several splits


def test_window_returns_the_turns_around_in_order_and_a_prefix_names_the_session() -> None:
    result = get_turns("s-shop", "u2", window=1)
    assert result.session_id == "s-shop-0001"
    assert [(t.seq, t.turn_uuid) for t in result.turns] == [(0, "u1"), (1, "u2"), (2, "u3")]


def test_a_missing_turn_is_a_clear_error() -> None:
    with pytest.raises(TurnNotFound, match="turn nope not found in session s-shop-0001"):
        get_turns("s-shop-0001", "nope")
    with pytest.raises(TurnNotFound, match="session zzz not found"):
        get_turns("zzz", "u1")
    with pytest.raises(TurnNotFound, match="matches 3 sessions"):
        get_turns("s-", "nope")


def test_a_prefix_several_sessions_share_is_settled_by_the_turn() -> None:
    # A hit's get line shows 8 characters of the session; the turn it names picks one session.
    assert get_turns("s-", "u2", window=0).session_id == "s-shop-0001"
    assert get_turns("s-", "i2", window=0).session_id == "s-infra-0002"


def test_cli_get_prints_the_agent_format_and_json() -> None:
    runner = CliRunner()
    out = runner.invoke(main, ["get", "s-shop-0001", "u2", "--window", "0"])
    assert out.exit_code == 0, out.output
    assert "] assistant seq1  ← asked" in out.output
    assert "│ We dropped the redis cache" in out.output
    data = json.loads(runner.invoke(main, ["get", "s-shop-0001", "u4", "--json"]).output)
    assert data["turns"][-1]["blocks"][0]["tool_name"] == "Bash"


def test_cli_get_missing_turn_is_one_line_and_exit_1() -> None:
    out = CliRunner().invoke(main, ["get", "s-shop-0001", "nope"])
    assert out.exit_code == 1
    assert out.output.strip().splitlines() == ["Error: turn nope not found in session s-shop-0001"]


def test_grep_words_need_no_quotes_and_stray_words_are_still_an_error() -> None:
    runner = CliRunner()
    turn = next(t for t in sample_turns() if t.blocks[0].text == LONG_TEXT)
    args = ["get", turn.session_id, turn.turn_uuid, "-C", "0"]
    quoted = runner.invoke(main, [*args, "--grep", "nothingness shard_7"])
    unquoted = runner.invoke(main, [*args, "--grep", "nothingness", "shard_7"])
    assert unquoted.exit_code == 0, unquoted.output
    assert unquoted.output == quoted.output
    assert "│ Step 7: the migration rewrites table shard_7 " in unquoted.output
    alone = runner.invoke(main, [*args, "--grep", "nothingness"])
    assert "no line holds 'nothingness'" in alone.output
    stray = runner.invoke(main, [*args, "shard_7"])
    assert stray.exit_code == 2
    assert "unexpected extra argument(s): shard_7" in stray.output
    # `--grep A --grep B`: either, as `A|B` (the second used to replace the first).
    twice = runner.invoke(main, [*args, "--grep", "shard_7", "--grep", "nothingness"])
    assert twice.output == runner.invoke(main, [*args, "--grep", "shard_7|nothingness"]).output
    assert "│ Step 7: the migration rewrites table shard_7 " in twice.output

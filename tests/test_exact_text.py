"""`--has TEXT`: recall ranks only the passages holding an exact text (case-insensitive, like
`grep -Fi`), and a filter that names nothing in the memory is dropped with a note, not answered
with an empty page."""

from __future__ import annotations

import json

import anyio
import pytest
from click.testing import CliRunner
from recall_fixtures import build_memory, turn

from funes.cli import main
from funes.retrieve import format_agent, recall
from funes.retrieve.filters import MAX_EXACT_CHARS, Filters

# Agent.ts read back in a pi session: the default model is one line among others that share
# every word of the question ("model", "default", "agent").
AGENT_TS = "\n".join(
    [
        "export class Agent {",
        "\t// the model a new agent starts with; callers set another with setModel",
        "\tprivate _state: AgentState = {",
        '\t\tsystemPrompt: "",',
        '\t\tmodel: getModel("google", "gemini-2.5-flash-lite-preview-06-17"),',
        '\t\tthinkingLevel: "off",',
        "\t};",
        *[
            f"\tmethod{i}() {{ return this._state.model; }} // model default agent"
            for i in range(30)
        ],
    ]
)


@pytest.fixture(autouse=True)
def first_pass_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")


@pytest.fixture
def memory() -> None:
    build_memory(
        [
            turn("s-pi-0001", "u1", 0, "which model does a new Agent default to?", role="user",
                 workdir="/Users/dev/workspaces/pi-mono"),
            turn("s-pi-0001", "a1", 1, "The default model of the agent is configurable.",
                 role="assistant", workdir="/Users/dev/workspaces/pi-mono"),
            turn("s-pi-0001", "r1", 2, AGENT_TS, role="assistant", block_type="tool_result",
                 tool_name="read", workdir="/Users/dev/workspaces/pi-mono"),
            turn("s-pi-0001", "a2", 3, "Agent model default: see the agent model docs.",
                 role="assistant", workdir="/Users/dev/workspaces/pi-mono"),
            turn("s-web-0002", "w1", 0, "The default model for the agent UI is set in config.",
                 role="assistant", workdir="/home/dev/chatbot-ui"),
            turn("s-web-0002", "w2", 1, "Renamed my_state_var to state and 50% of the tests pass.",
                 role="assistant", workdir="/home/dev/chatbot-ui"),
        ]
    )  # fmt: skip


def test_only_passages_holding_the_text_are_ranked_and_their_snippet_shows_it(memory) -> None:
    result = recall("agent default model", has='GETMODEL("google"')
    assert [hit.turn_uuid for hit in result.hits] == ["r1"]
    assert result.exact == 'GETMODEL("google"'
    assert not result.notes
    # Cut short, the passage shows the line holding the text, not the lines richest in the
    # query's words (every method line has all three).
    page = format_agent(result, max_tokens=150)
    assert "(+" in page  # cut
    assert 'getModel("google", "gemini-2.5-flash-lite-preview-06-17")' in page
    assert 'getModel("google"' not in format_agent(recall("agent default model", k=1), 150)


def test_the_text_alone_is_a_query() -> None:
    build_memory([turn("s-1", "t1", 0, "TypeError: generate is not a function", role="assistant")])
    result = recall("", has="generate is not a function")
    assert [hit.turn_uuid for hit in result.hits] == ["t1"]
    with pytest.raises(ValueError, match="empty query"):
        recall("  ")


def test_like_wildcards_and_quotes_in_the_text_match_only_themselves(memory) -> None:
    # `_` and `%` are LIKE's wildcards: "my_state" must not match "my state" or "myXstate".
    assert [h.turn_uuid for h in recall("state", has="my_state_var").hits] == ["w2"]
    assert [h.turn_uuid for h in recall("tests", has="50% of").hits] == ["w2"]
    wild = recall("tests", has="5_% of")  # as LIKE patterns these would match "50% of"
    assert wild.exact == "" and wild.notes[0].startswith("no passage holds the exact text")
    assert [h.turn_uuid for h in recall("model", has='"google", "gem').hits] == ["r1"]
    assert recall("it's", has="it's a").notes  # a quote is quoted, not SQL


def test_a_text_nothing_holds_is_dropped_with_a_note(memory) -> None:
    result = recall("agent default model", has="setDefaultModel(")
    assert result.hits  # the words still find places
    assert result.exact == ""
    assert result.notes == [
        "no passage holds the exact text 'setDefaultModel(': these places match its words"
    ]
    assert format_agent(result).splitlines()[1].startswith("note: no passage holds the exact")


def test_a_text_held_only_outside_the_other_filters_is_an_empty_answer(memory) -> None:
    # The text exists, just not in that project: that empty page is the answer, not a slip,
    # and the note says which filter to leave out to find passages, and how many there are.
    result = recall("agent default model", has="getModel(", project="chatbot-ui")
    assert result.hits == []
    assert result.notes == [
        "no passage matches these filters together; without --project, 1 do; without --has, 2 do"
    ]


def test_an_empty_answer_says_the_dates_a_time_bound_left_out(memory) -> None:
    # Every passage of the fixture is from 2026-03-01: a later --since empties the page, and
    # the note says when the project's passages are.
    result = recall("agent default model", project="pi-mono", since="2026-04-01")
    assert result.hits == []
    assert result.notes == [
        "no passage matches these filters together; without --since, 5 do "
        "(2026-03-01 to 2026-03-01)"
    ]
    page = (
        CliRunner()
        .invoke(main, ["recall", "agent model", "--project", "pi-mono", "--since", "2026-04-01"])
        .output
    )
    assert page.splitlines()[1:] == [
        "note: no passage matches these filters together; without --since, 5 do "
        "(2026-03-01 to 2026-03-01)",
        "no results",
    ]
    # Filters that match nothing even one by one left out say nothing more.
    nothing = recall("agent", project="pi-mono", harness="codex", since="2026-04-01")
    assert nothing.hits == [] and nothing.notes == []


def test_a_project_or_session_nothing_matches_is_dropped_with_a_note(memory) -> None:
    result = recall("default model config", project="pi-share-hf")
    assert result.hits
    assert result.notes == [
        "no session's folder or repo contains 'pi-share-hf': these places are from every project"
    ]
    result = recall("default model config", session="s-nope")
    assert result.hits
    assert result.notes == [
        "no session id starts with 's-nope': these places are from every session"
    ]
    # A project that exists keeps its filter, even where it has no match for the words.
    kept = recall("default model config", project="chatbot-ui")
    assert {hit.session_id for hit in kept.hits} == {"s-web-0002"} and not kept.notes


def test_a_page_after_a_slip_shows_its_places_briefly(memory) -> None:
    """Places that only share the query's words (the answer is most often not in the memory):
    each a snippet, without the asks and conclusions around them. Such pages were 5% of the
    agents' output at scale, and most were for an answer the memory did not hold."""
    query = "gemini flash lite preview getModel google"
    slipped = recall(query, project="pi-share-hf")
    kept = recall(query)
    assert slipped.slipped and not kept.slipped
    as_json = CliRunner().invoke(main, ["recall", query, "--project", "pi-share-hf", "--json"])
    assert json.loads(as_json.output)["slipped"] is True
    assert [hit.id for hit in slipped.hits] == [hit.id for hit in kept.hits]
    assert kept.hits[0].session_id == "s-pi-0001" and kept.hits[0].block_type == "tool_result"
    brief, full = format_agent(slipped), format_agent(kept)
    assert "  ~ seq" in full and "  ~ seq" not in brief
    assert "method5()" in full and "method5()" not in brief  # the best place is a snippet
    assert 'model: getModel("google", "gemini-2.5-flash-lite-preview-06-17")' in brief
    assert len(brief) < len(full) - 800
    # A parent's subagents searched in its stead are no slip (`test_a_parent_…` below), nor
    # is a text held outside the other filters (an empty answer).
    assert not recall("agent default model", has="my_state_var", project="pi-mono").slipped


def test_many_holders_filter_by_the_text_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    from funes.retrieve import exact

    monkeypatch.setattr(exact, "MAX_HOLDER_IDS", 3)  # past it, the predicate filters, not ids
    build_memory(
        [turn(f"s-{i}", f"t{i}", 0, f"retry {i}: connection reset by peer", role="assistant")
         for i in range(6)]
        + [turn("s-x", "x1", 0, "retry 4: connection refused", role="assistant")]
    )  # fmt: skip
    hits = recall("connection retry 4", has="RESET BY PEER", k=10).hits
    assert sorted(hit.turn_uuid for hit in hits) == [f"t{i}" for i in range(6)]


def test_the_cli_and_its_errors(memory) -> None:
    runner = CliRunner()
    shown = runner.invoke(main, ["recall", "--has", 'getModel("', "--json"])
    assert shown.exit_code == 0, shown.output
    assert [h["turn_uuid"] for h in json.loads(shown.output)["hits"]] == ["r1"]
    empty = runner.invoke(main, ["recall"])
    assert empty.exit_code == 2
    assert "say what to recall: words, or --has TEXT" in empty.output
    long = runner.invoke(main, ["recall", "x", "--has", "y" * (MAX_EXACT_CHARS + 1)])
    assert long.exit_code == 1 and "--has text too long" in long.output
    assert Filters.build(has="  ").has is None


def test_the_mcp_tool_takes_has(memory) -> None:
    from funes.integrations.mcp_server import build_server

    async def call() -> str:
        answer = await build_server().call_tool("recall", {"query": "model", "has": "gemini-2.5"})
        return str(answer)

    page = anyio.run(call)
    assert "seq2 tool_result:read" in page and "#2" not in page


def test_a_parent_the_memory_lacks_reads_as_its_subagents() -> None:
    # A page names a subagent's parent ("subagent of 3660ac37"); Claude Code may leave the
    # parent's own transcript empty, and `--session 3660ac37` then meant every session. Its
    # subagents are what the memory holds of it.
    first = turn("agent-a1b2c3d4", "s0", 0, "Tweak the collapsed section spacing.")
    first.parent_uuid = "3660ac37-0000-4000-8000-000000000000"
    build_memory(
        [
            first,
            turn("agent-a1b2c3d4", "s1", 1, "Set the margin of collapsed sections to 0.5em.",
                 role="assistant"),
            turn("s-other-0001", "o1", 0, "Spacing of the collapsed sections in the docs theme.",
                 role="assistant"),
        ]
    )  # fmt: skip
    result = recall("collapsed section spacing", session="3660ac37")
    assert {hit.session_id for hit in result.hits} == {"agent-a1b2c3d4"}
    # Read as a session, the missing parent names the subagent sessions to read instead.
    for command in (["timeline", "3660ac37"], ["get", "3660ac37", "1"]):
        out = CliRunner().invoke(main, command)
        assert out.exit_code != 0
        assert (
            "session 3660ac37 not found in this memory; it is the parent of 1 subagent "
            "session(s) it holds: agent-a1"
        ) in out.output
    assert result.notes == [
        "no session id starts with '3660ac37': these places are from its 1 subagent session(s)"
    ]
    # An empty answer there counts what leaving a filter out finds among those sessions only.
    empty = recall("collapsed section spacing", session="3660ac37", since="2026-04-01")
    assert empty.hits == []
    assert empty.notes[1:] == [
        "no passage matches these filters together; without --since, 2 do "
        "(2026-03-01 to 2026-03-01)"
    ]


def test_outputs_of_calls_that_hold_the_text_are_kept_with_type_tool_result() -> None:
    """`--has cli.py --type tool_result`: what reading `cli.py` returned, though the output
    holds the file and not its path (ten agent calls, all of one question, came back
    without that read)."""
    from funes.model import Block, Turn

    def tool_turn(seq: int, role: str, blocks: list[Block]) -> Turn:
        return Turn(
            "s-read",
            f"r{seq}",
            None,
            seq,
            "2026-03-01T10:00:00Z",
            role,
            "/w/app",
            "claude_code",
            "/t/s-read.jsonl",
            blocks,
        )

    build_memory(
        [
            tool_turn(0, "user", [Block("text", "what does the cli import?")]),
            tool_turn(
                1,
                "assistant",
                [
                    Block(
                        "tool_use", "file_path: /w/app/models.py", "Read", tool_use_id="t-models"
                    ),
                    Block("tool_use", "file_path: /w/app/cli.py", "Read", tool_use_id="t-cli"),
                ],
            ),
            tool_turn(
                2,
                "user",
                [
                    Block(
                        "tool_result",
                        "import pydantic\nclass Model: ...",
                        "Read",
                        tool_use_id="t-models",
                    )
                ],
            ),
            tool_turn(
                3,
                "user",
                [
                    Block(
                        "tool_result",
                        "import click\nfrom git import Repo",
                        "Read",
                        tool_use_id="t-cli",
                    )
                ],
            ),
            # Names cli.py in its own text: kept as before.
            tool_turn(
                4,
                "user",
                [Block("tool_result", "cli.py:3: import click", "Bash", tool_use_id="t-grep")],
            ),
        ]
    )
    outputs = recall("imports", has="cli.py", block_type="tool_result", k=5)
    assert {hit.text.splitlines()[-1].split("] ")[-1] for hit in outputs.hits} == {
        "from git import Repo",
        "cli.py:3: import click",
    }
    # Without the type, the call itself holds it: the output stays out.
    calls = recall("imports", has="cli.py", k=5)
    assert "from git import Repo" not in {hit.text.splitlines()[-1] for hit in calls.hits}

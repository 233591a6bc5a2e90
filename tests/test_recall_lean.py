"""The lean answer: neighbours chosen for value, long passages cut around what matched, and
`--max-tokens` packing the best evidence into a budget (CLI and MCP)."""

from __future__ import annotations

import os
import re
import sys

import anyio
import pytest
from click.testing import CliRunner
from recall_fixtures import build_memory, make_hit, turn

from funes.cli import main
from funes.retrieve import format_agent, recall
from funes.retrieve.budget import excerpt, tokens_of
from funes.retrieve.types import Hit, RecallResult

S = "s-long-0001"
LOG = "\n".join(f"PASSED tests/test_mod_{i}.py::test_case_{i}" for i in range(60))
LOG_WITH_FAILURE = LOG.replace(
    "PASSED tests/test_mod_30.py::test_case_30",
    "FAILED tests/test_mod_30.py::test_case_30 - TimeoutError: flaky websocket handshake",
)


def long_turn() -> list:
    """A prompt, a run of tool calls and their output, the assistant's conclusion, a new prompt."""
    tool = dict(role="assistant", block_type="tool_use", tool_name="Bash")
    result = dict(role="user", block_type="tool_result", tool_name="Bash")
    return [
        turn(S, "p1", 0, "The CI run keeps failing on main, find out why."),
        turn(S, "a1", 1, '{"command": "gh run view --log"}', **tool),
        turn(S, "r1", 2, LOG_WITH_FAILURE, **result),
        turn(S, "a2", 3, "Let me look at the websocket test.", role="assistant"),
        turn(S, "a3", 4, '{"command": "pytest tests/test_mod_30.py -x"}', **tool),
        turn(S, "r2", 5, "1 passed in 0.2s", **result),
        turn(
            S,
            "a4",
            6,
            "The failure is a flaky websocket handshake timeout; raising the handshake timeout "
            "to 10s in conftest.py fixed it.",
            role="assistant",
        ),
        turn(S, "p2", 7, "Great, now bump the version.", role="user"),
    ]


@pytest.fixture(autouse=True)
def first_pass_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")


def test_a_hit_inside_a_long_turn_brings_its_prompt_and_conclusion_only() -> None:
    build_memory(long_turn())
    output = recall("test_case_30 TimeoutError", k=1).hits[0]
    assert output.turn_uuid == "r1"
    # Not the tool calls and outputs around it: the prompt and what the assistant concluded.
    assert [(n.turn_uuid, n.role) for n in output.neighbours] == [
        ("p1", "user"),
        ("a4", "assistant"),
    ]
    prompt = recall("CI run keeps failing on main", k=1).hits[0]
    assert prompt.turn_uuid == "p1"
    assert [n.turn_uuid for n in prompt.neighbours] == ["a4"]
    # A neighbour already shown as a hit is not repeated, and no hit has more than two.
    hits = recall("websocket handshake timeout failed", k=8).hits
    shown = {h.turn_uuid for h in hits}
    assert all(len(h.neighbours) <= 2 for h in hits)
    assert not any(n.turn_uuid in shown for h in hits for n in h.neighbours)


def test_an_assistant_question_brings_the_users_answer() -> None:
    # The decision is made in the user's reply to the assistant's question, not in the question.
    # (A reply this long ranks for what it says: it lifts no answer, tests/test_recall_answers.py.)
    session = "s-ask-0001"
    build_memory(
        [
            turn(session, "q1", 0, "The nightly export is too slow, speed it up."),
            turn(
                session,
                "q2",
                1,
                "Profiling shows the gzip step dominates: 41 of the 52 minutes go to compressing "
                "the CSVs at level 9, the upload takes 6. In a test on last week's export, zstd "
                "level 3 was five times faster for about the same size on disk. Should I switch "
                "the export to zstd?",
                role="assistant",
            ),
            turn(session, "q3", 2, "Yes, level 3, and keep one gzip copy for the auditors."),
            turn(session, "q4", 3, "Done: zstd level 3 plus a gzip copy.", role="assistant"),
        ]
    )
    hit = recall("profiling gzip step dominates switch export", k=1).hits[0]
    assert hit.turn_uuid == "q2"
    assert [n.turn_uuid for n in hit.neighbours] == ["q1", "q3"]


def test_what_people_said_outranks_tool_output_that_shares_its_words() -> None:
    # The short log line out-scores the longer sentence on words alone (BM25 favours short
    # passages); the assistant's sentence is what answers, and comes first.
    build_memory(
        [
            turn(S, "p1", 0, "Why is CI red?"),
            turn(
                S, "r1", 1, "FAILED test_ws: websocket handshake timeout",
                role="user", block_type="tool_result", tool_name="Bash",
            ),
            turn(
                S, "a1", 2,
                "After reading the whole log on the slow runner: the websocket handshake timeout "
                "made test_ws fail, so we raised it to 10s.",
                role="assistant",
            ),
        ]
    )  # fmt: skip
    question = "which test failed on the websocket handshake timeout"
    ranked = [h.turn_uuid for h in recall(question, k=3).hits]
    assert ranked.index("a1") < ranked.index("r1")


def test_a_long_passage_is_cut_around_the_line_that_matched() -> None:
    shown = excerpt(LOG_WITH_FAILURE, "which test failed with a websocket timeout", limit=300)
    assert any("FAILED tests/test_mod_30.py" in line for line in shown.lines)
    assert sum(len(line) + 1 for line in shown.lines) <= 301
    assert shown.above > 0 and shown.below > 0
    assert excerpt("short text", "anything").lines == ["short text"]


def test_the_agent_format_marks_a_cut_and_keeps_every_line_quoted() -> None:
    hit = _hits(1)[0]
    hit.block_type, hit.role, hit.text = "tool_result", "user", LOG_WITH_FAILURE
    text = format_agent(RecallResult("websocket timeout failed", [hit], "/m"))
    lines = text.splitlines()
    # The place's line says how much more the turn holds; every shown line is quoted.
    assert re.search(r"^#1 \[.*\] seq\d+ tool_result \(\+\d+ lines\) → funes get ", lines[2])
    body = lines[3:]
    assert body and all(line.startswith("│") for line in body)
    assert any("FAILED tests/test_mod_30.py" in line for line in body)


def _hits(n: int) -> list[Hit]:
    text = "the cache was dropped because invalidation served stale prices " * 8
    return [
        make_hit(
            f"passage {i}: {text}",
            id=f"c{i}",
            session_id=f"sess{i:04d}",
            turn_uuid=f"t{i}",
            seq=i,
            harness="pi",
            workdir="/w",
            repo="",
            score=1.0 - i / 100,
        )
        for i in range(n)
    ]


def test_max_tokens_packs_the_best_passages_into_the_budget() -> None:
    result = RecallResult("why was the cache dropped", _hits(12), "/m")
    for budget in (200, 500, 1500):
        text = format_agent(result, max_tokens=budget)
        assert tokens_of(text) <= budget
        places = [line for line in text.splitlines() if line.startswith("#")]
        shown = len(places)
        assert shown and text.startswith(f"funes recall: {shown} place(s)")
        if shown < 12:
            assert f"note: {12 - shown} more place(s) matched but were left out" in text
        # Best first: the places shown are the top ones, in rank order.
        assert [line.split()[0] for line in places] == [f"#{i + 1}" for i in range(shown)]
    assert format_agent(result, max_tokens=200).count("\n#") < format_agent(  # fewer fit
        result, max_tokens=1500
    ).count("\n#")


def test_max_tokens_on_the_command_line_and_a_bad_budget_is_one_line() -> None:
    build_memory(long_turn())
    out = CliRunner().invoke(main, ["recall", "websocket", "handshake", "--max-tokens", "150"])
    assert out.exit_code == 0, out.output
    assert tokens_of(out.output) <= 150
    assert out.output.startswith("funes recall: ")
    bad = CliRunner().invoke(main, ["recall", "websocket", "--max-tokens", "0"])
    assert bad.exit_code != 0 and "--max-tokens" in bad.output


async def _mcp_recall(env: dict[str, str], arguments: dict) -> tuple[dict, str]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "funes.cli", "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        result = await session.call_tool("recall", arguments)
        return tools["recall"].input_schema, result.content[0].text


@pytest.mark.slow
def test_the_mcp_recall_tool_takes_a_token_budget() -> None:
    build_memory(long_turn())
    env = {**os.environ, "FUNES_RERANKER": "none"}
    query = {"query": "websocket handshake timeout"}
    schema, text = anyio.run(_mcp_recall, env, {**query, "max_tokens": 150})
    assert "max_tokens" in schema["properties"]
    assert text.startswith("funes recall: ") and tokens_of(text) <= 150
    _, bad = anyio.run(_mcp_recall, env, {**query, "max_tokens": 0})
    assert bad.startswith("recall error: max_tokens")


def test_a_to_do_list_rewritten_at_each_step_is_one_place() -> None:
    # Agents rewrite their whole to-do list as each item moves on: five snapshots that differ
    # by a status word took five of ten places. The best one stands for them all, and the
    # places they left free go to the passages that say something else.
    session = "s-todo-0001"
    items = [
        "Update recorder.js to use AudioWorklet instead of ScriptProcessor",
        "Create NoiseWorklet processor for the drone synth",
        "Register both worklets with audioWorklet.addModule",
    ]
    todo = dict(role="assistant", block_type="tool_use", tool_name="TodoWrite")
    turns = [turn(session, "p0", 0, "Let's migrate the recorder to AudioWorklet.")]
    for step in range(4):
        status = ["[completed]"] * step + ["[in_progress]"] + ["[pending]"] * 3
        lines = [f"{status[i]} {item}" for i, item in enumerate(items)]
        turns.append(turn(session, f"t{step}", 1 + 2 * step, "\n".join(lines), **todo))
        turns.append(
            turn(session, f"r{step}", 2 + 2 * step, "Todos have been modified successfully.",
                 role="user", block_type="tool_result", tool_name="TodoWrite")
        )  # fmt: skip
    turns.append(
        turn(session, "a9", 9, "Added js/lib/recorder-worklet.js and js/noise-worklet.js: the "
             "recorder no longer uses ScriptProcessor.", role="assistant")
    )  # fmt: skip
    build_memory(turns)
    hits = recall("recorder AudioWorklet ScriptProcessor worklet", k=5).hits
    snapshots = [h for h in hits if h.tool_name == "TodoWrite"]
    assert len(snapshots) == 1
    assert "a9" in {h.turn_uuid for h in hits}
    # Different words in the same kind of block are different places.
    other = turn(session, "t9", 20, "[pending] Write the release notes for 2.0", **todo)
    build_memory([other])
    hits = recall("recorder AudioWorklet ScriptProcessor worklet release notes", k=10).hits
    assert {"t9"} <= {h.turn_uuid for h in hits}
    assert len([h for h in hits if h.tool_name == "TodoWrite"]) == 2


def test_an_edit_tried_again_is_not_a_copy() -> None:
    # Each try at a fix shares most of its words with the last, and differs where it matters:
    # "what finally got pyright to accept it" is answered by the last try, not the best-ranked.
    session = "s-edit-0001"
    edit = dict(role="assistant", block_type="tool_use", tool_name="Edit")
    body = "\n".join(f"    value_{i} = contents_json.get('field_{i}')" for i in range(12))
    tries = [
        "data = contents_json  # type: ignore",
        "data = cast(Dict[str, Any], contents_json)",
    ]
    build_memory(
        [
            turn(session, "p0", 0, "Make strict pyright accept the JSON text extraction."),
            *[
                turn(session, f"e{n}", 1 + n, f"file_path: x.py\n{body}\n    {line}", **edit)
                for n, line in enumerate(tries)
            ],
        ]
    )
    hits = recall("pyright JSON text extraction contents_json converter", k=5).hits
    assert {"e0", "e1"} <= {h.turn_uuid for h in hits}

"""A tool call's output ranks with it: when the call matches the question (the command, the
file's path) its output, which holds the answer in words the question never uses, is lifted
above it; an output that holds none of the question's words is not."""

from __future__ import annotations

import pytest
from recall_fixtures import build_memory, turn

from funes.retrieve import recall

S = "s-tools-0001"
OTHER = "s-other-0002"


@pytest.fixture(autouse=True)
def first_pass_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")


def call(uuid: str, seq: int, text: str, tool: str = "Bash") -> object:
    return turn(S, uuid, seq, text, role="assistant", block_type="tool_use", tool_name=tool)


def output(uuid: str, seq: int, text: str, tool: str = "Bash", **fields: str) -> object:
    return turn(S, uuid, seq, text, block_type="tool_result", tool_name=tool, **fields)


def cache_suite_turns(output_ts: str = "2026-03-01T10:00:00Z") -> list:
    return [
        turn(S, "u1", 0, "The nightly job broke again, have a look."),
        call("c1", 1, "pytest tests/test_cache_version_suite.py -q  # cache version suite"),
        output(
            "r1", 2,
            "F..........\nAssertionError: cache schema 3 != 4 (written by 0.8.1)\n"
            "1 failed, 11 passed in 0.42s",
            ts=output_ts,
        ),
        turn(S, "a1", 3, "One failure; I'll look at the schema check.", role="assistant"),
        turn(OTHER, "o1", 0, "Add a favicon to the landing page."),
        turn(OTHER, "o2", 1, "Added favicon.ico to the page.", role="assistant"),
    ]  # fmt: skip


def test_the_output_of_a_matching_call_ranks_above_the_call() -> None:
    build_memory(cache_suite_turns())
    hits = recall("what did the cache version suite run show", k=2).hits
    # The output ranks first and carries its call; the call is not a place of its own.
    assert hits[0].turn_uuid == "r1" and hits[0].block_type == "tool_result"
    assert hits[0].partner is not None and hits[0].partner.turn_uuid == "c1"
    assert "c1" not in {h.turn_uuid for h in hits}


def test_an_output_outside_the_filters_is_not_lifted_in() -> None:
    build_memory(cache_suite_turns(output_ts="2026-03-05T09:00:00Z"))
    hits = recall("what did the cache version suite run show", k=3, until="2026-03-02").hits
    assert "r1" not in {h.turn_uuid for h in hits}
    assert hits[0].turn_uuid == "c1"


def test_an_output_with_none_of_the_questions_words_stays_where_it_was() -> None:
    build_memory(
        [
            turn(S, "u1", 0, "Document the theme hot reload in the README."),
            call("c1", 1, "README.md: themes hot reload without a restart", tool="Edit"),
            output("r1", 2, "Successfully replaced text in README.md.", tool="Edit"),
            turn(S, "a1", 3, "Done.", role="assistant"),
        ]
    )
    hits = recall("do themes hot reload without a restart", k=2).hits
    assert "r1" not in {h.turn_uuid for h in hits}


def three_reads_together() -> list:
    """Three Reads made at once, then their three outputs, in the order they were made."""
    return [
        turn(S, "u1", 0, "Where does the app read its config?"),
        call("c1", 1, "file_path: /app/models.py", tool="Read"),
        call("c2", 2, "file_path: /app/cli.py", tool="Read"),
        call("c3", 3, "file_path: /app/views.py", tool="Read"),
        output("r1", 4, "class Model:\n    pass", tool="Read"),
        output("r2", 5, "from git import Repo, InvalidGitRepositoryError", tool="Read"),
        output("r3", 6, "def index():\n    return render()", tool="Read"),
    ]


def test_calls_made_together_each_name_their_own_output() -> None:
    """Three Reads at once, their outputs after: each output's `⇐` line names its own call,
    and each call's `⇒` line its own outcome (first in, first out), not the nearest one."""
    from funes.retrieve import format_agent

    build_memory(three_reads_together())
    result = recall("from git import Repo InvalidGitRepositoryError", k=1)
    (hit,) = result.hits
    assert hit.turn_uuid == "r2" and hit.partner is not None
    assert hit.partner.turn_uuid == "c2"
    assert "  ⇐ seq2 Read: /app/cli.py" in format_agent(result)


def test_get_of_a_call_shows_what_it_returned() -> None:
    """Agents record a call and its output as two turns: `funes get` of the call's seq prints
    its own output too (the second of three Reads made together: the second output)."""
    from click.testing import CliRunner

    from funes.cli import main

    build_memory(three_reads_together())
    got = CliRunner().invoke(main, ["get", "s-tools-", "2", "--format", "agent"])
    assert got.exit_code == 0, got.output
    assert "] user seq5\n" in got.output
    assert "from git import Repo, InvalidGitRepositoryError" in got.output
    assert "class Model" not in got.output and "def index" not in got.output


def test_a_subagents_hit_names_its_parent_and_the_task_it_was_given(corpus) -> None:
    """Claude Code's `agent-a2271d1` explored a codebase for session 29ccd257: its hits say so
    (issue 30: subagents showed as bare `agent-…` ids with a misleading folder)."""
    from funes.index.indexer import index
    from funes.retrieve import format_agent

    index([corpus / "claude"])
    result = recall("overview of the code organization", session="agent-a2271d1", k=2)
    assert result.subagents["agent-a2271d1"] == ("29ccd257", "Explore codebase structure")
    page = format_agent(result)
    assert " · subagent of 29ccd257\n  ~ task: Explore codebase structure\n" in page


def test_get_of_a_turn_that_made_three_calls_at_once_shows_each_output() -> None:
    """Claude Code records three Reads made at once as one turn with three tool_use blocks,
    then one turn per output: `get` of that turn shows all three outputs, not the first one
    three times over (an agent looked for config.ru's content in the README's output)."""
    from click.testing import CliRunner

    from funes.cli import main
    from funes.model import Block

    reads = turn(S, "c1", 1, "file_path: /app/README.md", role="assistant")
    reads.blocks = [
        Block(block_type="tool_use", text=f"file_path: /app/{name}", tool_name="Read")
        for name in ("README.md", "index.html", "config.ru")
    ]
    build_memory(
        [
            turn(S, "u0", 0, "What does this project do?"),
            reads,
            output("r1", 2, "JSSoundRecorder: record sounds", tool="Read"),
            output("r2", 3, "<html><body>recorder</body></html>", tool="Read"),
            output("r3", 4, "use Rack::Static\nrun Rack::Directory.new(Dir.pwd)", tool="Read"),
        ]
    )
    got = CliRunner().invoke(main, ["get", "s-tools-", "1"])
    assert got.exit_code == 0, got.output
    assert "seq1 and 3 turn(s) around it" in got.output
    assert "│ run Rack::Directory.new(Dir.pwd)" in got.output
    assert "│ <html><body>recorder</body></html>" in got.output

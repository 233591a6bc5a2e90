"""`funes timeline`: a session's course, one line a step, in few characters (issue 30)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from recall_fixtures import build_memory, turn

from funes.cli import main

S = "s-course-0001"
H = S[:8]  # its handle
APP = "/home/dev/shop"


@pytest.fixture(autouse=True)
def course_memory() -> None:
    def call(uuid: str, seq: int, text: str, tool: str) -> object:
        return turn(S, uuid, seq, text, role="assistant", block_type="tool_use", tool_name=tool)

    def output(uuid: str, seq: int, text: str, tool: str) -> object:
        return turn(S, uuid, seq, text, block_type="tool_result", tool_name=tool)

    build_memory(
        [
            turn(S, "u0", 0, "<ide_selection>line 508 of cli.py</ide_selection>"),
            turn(
                S,
                "u1",
                1,
                "Make the CLI detect the branch's PR when no argument is given, and if none, "
                "say so plainly?",
            ),
            call("c2", 2, f"file_path: {APP}/src/cli.py", "Read"),
            output("r3", 3, "def main():\n    parse()\n    run()\n    report()", "Read"),
            call("c4", 4, f"file_path: {APP}/src/cli.py\nold_string: a\nnew_string: b", "Edit"),
            output("r5", 5, "The file has been updated.", "Edit"),
            call("c6", 6, f"command: cd {APP} && pytest -q", "Bash"),
            output("r7", 7, "FAILED tests/test_cli.py::test_branch - KeyError: 'pr'", "Bash"),
            turn(
                S, "a8", 8, "The branch lookup fails without a PR; handling it.", role="assistant"
            ),
        ]
    )


def timeline(*args: str) -> str:
    out = CliRunner().invoke(main, ["timeline", H, *args])
    assert out.exit_code == 0, out.output
    return out.output


def test_each_step_is_one_line_with_paths_under_the_session_folder_made_relative() -> None:
    lines = timeline().splitlines()
    assert lines[0].startswith(f"funes timeline: session {H}") and "~/shop" in lines[0]
    steps = [line for line in lines if line.startswith("seq")]
    assert steps[1].startswith("seq2 10:00 Read: src/cli.py → seq3 ok (4 lines): def main():")
    assert "(again seq4)" in steps[1]  # the same file, edited later
    # The folder itself stays (`cd` into it is what the command did); what is under it is short.
    bash = "seq6 10:00 Bash: cd /home/dev/shop && pytest -q → seq7 error: FAILED"
    assert steps[3].startswith(bash)
    assert APP + "/src" not in "\n".join(lines)


def test_a_wrapper_the_harness_put_around_nothing_is_not_an_ask() -> None:
    text = timeline()
    assert "ide_selection" not in text and "line 508" not in text
    assert "seq1 10:00 user: Make the CLI detect the branch's PR" in text


def test_an_ask_keeps_its_end_where_a_step_would_be_cut() -> None:
    """The user's words get 100 characters, as on the recall page: a 90-character ask is
    whole (another step is cut at 80)."""
    assert "say so plainly?\n" in timeline()


def test_around_a_turn_marks_it_and_says_how_to_read_more() -> None:
    text = timeline("6", "--steps", "1")
    steps = [line for line in text.splitlines() if line.startswith("seq")]
    assert [step.split()[0] for step in steps] == ["seq4", "seq6", "seq8"]
    assert steps[1].endswith("← asked")
    assert text.splitlines()[-1] == (
        f"more: funes get {H} SEQ reads a step; 2 step(s) not shown: "
        f"funes timeline {H} SEQ --steps N shows N each side"
    )


def test_what_a_slash_command_printed_is_a_step() -> None:
    """`/model` then "Kept model as opusplan": the reply is what the user asked about (an
    agent fetched seq after seq to find it)."""
    build_memory(
        [
            turn("s-slash-0001", "u0", 0, "<command-name>/model</command-name>"),
            turn(
                "s-slash-0001",
                "u1",
                1,
                "<local-command-stdout>Kept model as opusplan</local-command-stdout>",
            ),
        ]
    )
    out = CliRunner().invoke(main, ["timeline", "s-slash-"])
    assert out.exit_code == 0, out.output
    assert "seq1 10:00 command output: Kept model as opusplan" in out.output

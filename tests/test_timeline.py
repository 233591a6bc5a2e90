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


def test_has_lists_only_the_steps_holding_a_text_in_order_with_the_words_around_it() -> None:
    """`--has`: where a name came up, as `rg NAME session.jsonl` shows it (the agents answered
    "where did I first…" with the best-ranked place, not the first one)."""
    text = timeline("--has", "REPORT()")
    lines = text.splitlines()
    assert lines[0].endswith("1 step(s) hold 'REPORT()'.")
    assert [line.split()[0] for line in lines if line.startswith("seq")] == ["seq2"]
    # The call's line names the file; the words found in its output follow, quoted.
    assert lines[1].startswith("seq2 10:00 Read: src/cli.py → seq3 ok (4 lines): def main():")
    assert lines[2] == "  │ def main(): parse() run() report()"
    assert lines[-1] == f"more: funes get {H} SEQ reads a step (--grep 'REPORT()': only its lines)"

    in_order = timeline("--has", "branch")
    seqs = [line.split()[0] for line in in_order.splitlines() if line.startswith("seq")]
    assert seqs == ["seq1", "seq6", "seq8"]  # the ask, the failing test, the reply


def test_has_finds_reasoning_and_shows_what_was_said_around_the_text() -> None:
    far = "Looking at the options we have here for the queue, and weighing each of them. " * 2
    build_memory(
        [
            turn("s-think-001", "u0", 0, "Why do the events arrive twice?"),
            turn(
                "s-think-001",
                "t1",
                1,
                far + "They probably come from transport.run() in the Agent.",
                role="assistant",
                block_type="thinking",
            ),
            turn("s-think-001", "a2", 2, "Found it: the agent loop emits them.", role="assistant"),
        ]
    )
    out = CliRunner().invoke(main, ["timeline", "s-think-", "--has", "transport.run"])
    assert out.exit_code == 0, out.output
    steps = [line for line in out.output.splitlines() if line.startswith("seq")]
    assert len(steps) == 1
    assert steps[0].startswith("seq1 10:00 thinking: …")
    assert steps[0].endswith("come from transport.run() in the Agent.")
    # Without --has, reasoning is a step of the course, by its first words (a first guess is
    # said only there); a long session's overview of asks and replies leaves it out.
    whole = CliRunner().invoke(main, ["timeline", "s-think-"]).output
    steps = [line for line in whole.splitlines() if line.startswith("seq")]
    assert steps[1].startswith("seq1 10:00 thinking: Looking at the options we have here")
    assert steps[2] == "seq2 10:00 assistant: Found it: the agent loop emits them."


def test_has_around_a_turn_and_a_text_no_step_holds() -> None:
    text = timeline("6", "--has", "branch", "--steps", "0")
    steps = [line for line in text.splitlines() if line.startswith("seq")]
    assert len(steps) == 1 and steps[0].startswith("seq6 ") and steps[0].endswith("← asked")
    assert text.splitlines()[-1].endswith(
        f"2 step(s) not shown: funes timeline {H} SEQ --has branch --steps N shows N each side"
    )
    # Not in a harness reminder appended to an output (Claude Code adds one to every Read).
    reminder = "def main():\n<system-reminder>Reading a file? Mind malware.</system-reminder>"
    build_memory(
        [
            turn(S, "c9", 9, f"file_path: {APP}/src/x.py", role="assistant",
                 block_type="tool_use", tool_name="Read"),
            turn(S, "r9", 10, reminder, block_type="tool_result", tool_name="Read"),
        ]
    )  # fmt: skip
    assert "0 step(s) hold malware." in timeline("--has", "malware").splitlines()[0]
    nothing = timeline("--has", "redis cache")
    assert not [line for line in nothing.splitlines() if line.startswith("seq")]
    assert (
        f"note: no step of this session holds 'redis cache': `funes recall 'redis cache' "
        f"--session {H}` looks for it by meaning"
    ) in nothing
    assert "--grep" not in nothing


def test_has_shows_the_first_steps_and_the_last_when_many_hold_the_text() -> None:
    build_memory(
        [turn("s-many-0001", f"u{i}", i, f"try number {i} of the flaky retry") for i in range(30)]
    )
    out = CliRunner().invoke(main, ["timeline", "s-many-", "--has", "flaky retry"])
    assert out.exit_code == 0, out.output
    seqs = [int(line.split()[0][3:]) for line in out.output.splitlines() if line.startswith("seq")]
    assert seqs == [*range(11), *range(25, 30)]  # "first" reads the head, "survived" the tail
    assert out.output.splitlines()[0].endswith("30 step(s) hold 'flaky retry'.")
    assert out.output.rstrip().endswith(
        "14 step(s) not shown: funes timeline s-many-0 SEQ --has 'flaky retry' shows those "
        "around one"
    )


def test_a_write_step_says_what_it_changed_not_that_it_succeeded() -> None:
    """`Successfully replaced text in…` told the agents nothing: they spent a `get` on the edit.
    A write step now shows the first line it added (or, adding none, removed), even past the
    first chunk of a long edit, and its outcome is just `ok`."""
    assert "seq4 10:00 Edit: src/cli.py → seq5 ok · + b\n" in timeline()
    filler = "\n".join(f"    keep_line_{i}()" for i in range(60))  # past one chunk (1,200)
    long_edit = (
        f"file_path: {APP}/app.py\nold_string:\n{filler}\n"
        f"new_string:\n{filler}\n    retry_after = 30"
    )
    patch = "*** Begin Patch\n*** Update File: a.css\n@@\n-.x {}\n+.nav {}"
    removal = f"path: {APP}/b.py\noldText:\nkeep()\ndrop()\nnewText:\nkeep()"
    s = "s-writes-001"
    build_memory(
        [
            turn(s, "e1", 1, long_edit, role="assistant", block_type="tool_use", tool_name="Edit"),
            turn(s, "o2", 2, "Successfully edited", block_type="tool_result", tool_name="Edit"),
            turn(
                s, "p3", 3, patch, role="assistant", block_type="tool_use", tool_name="apply_patch"
            ),
            turn(s, "r4", 4, removal, role="assistant", block_type="tool_use", tool_name="edit"),
        ]
    )
    out = CliRunner().invoke(main, ["timeline", "s-writes"])
    assert out.exit_code == 0, out.output
    steps = [line for line in out.output.splitlines() if line.startswith("seq")]
    assert steps == [
        "seq1 10:00 Edit: app.py → seq2 ok · + retry_after = 30",
        "seq3 10:00 apply_patch: a.css · + .nav {}",
        "seq4 10:00 edit: b.py · - drop()",
    ]


def test_has_keeps_what_changed_a_name_before_what_only_read_it() -> None:
    """31 steps held `mdCodeBlock`, most of them reads of the theme files; the edits that set
    it to the accent colour fell in the cut middle and the agent answered "no" (h-x036)."""
    s = "s-reads-0001"
    turns = []
    for i in range(20):
        turns.append(
            turn(
                s,
                f"c{i}",
                2 * i,
                f"file_path: {APP}/theme{i}.json",
                role="assistant",
                block_type="tool_use",
                tool_name="Read",
            )
        )
        turns.append(
            turn(
                s,
                f"r{i}",
                2 * i + 1,
                f'"mdCodeBlock": "" (copy {i})',
                block_type="tool_result",
                tool_name="Read",
            )
        )
    turns.append(
        turn(
            s,
            "e1",
            21,
            f'file_path: {APP}/dark.json\nold_string: x\nnew_string: "mdCodeBlock": "accent"',
            role="assistant",
            block_type="tool_use",
            tool_name="Edit",
        )
    )
    turns.append(turn(s, "u1", 23, "no, mdCodeBlock should stay as is"))
    build_memory(turns)  # fmt: skip
    out = CliRunner().invoke(main, ["timeline", "s-reads-", "--has", "mdCodeBlock"]).output
    seqs = [int(line.split()[0][3:]) for line in out.splitlines() if line.startswith("seq")]
    assert len(seqs) == 16 and 21 in seqs and 23 in seqs  # the edit and the ask, kept
    assert seqs == sorted(seqs) and seqs[0] == 0 and seqs[-1] == 38  # reads: first and last
    assert "22 step(s) hold mdCodeBlock." in out.splitlines()[0]

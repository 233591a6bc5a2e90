"""`funes resume SESSION`: the command that reopens a session in the agent that wrote it, from
its recorded folder; what it says when it cannot. (The real agents resuming corpus sessions are
in test_resume_agents.py.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from recall_fixtures import build_memory, turn

from funes.cli import main


def _memory(workdir: Path, transcripts: Path | None = None) -> None:
    """One session of each agent in `workdir`, each with its transcript on this machine (in
    `transcripts`, default `workdir`/transcripts), as its agent would reopen it."""
    folder = transcripts or workdir / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    turns = [
        turn("c1aude00-0000", "u1", 0, "fix the cart", workdir=str(workdir)),
        turn("c0dex000-0000", "u2", 0, "fix the job", harness="codex", workdir=str(workdir)),
        turn("p1000000-0000", "u3", 0, "explain this", harness="pi", workdir=str(workdir)),
        turn("herme500-0000", "u4", 0, "plan a trip", harness="hermes", workdir=str(workdir)),
        turn("parquet0-0000", "u5", 0, "imported", harness="parquet", workdir=str(workdir)),
        turn("qwen0000-0000", "u6", 0, "port it", harness="qwen", workdir=str(workdir)),
        turn("c0pilot0-0000", "u7", 0, "lint it", harness="copilot", workdir=str(workdir)),
        turn("0pencode-0000", "u8", 0, "ship it", harness="opencode", workdir=str(workdir)),
        turn("gemini00-0000", "u9", 0, "plan it", harness="gemini", workdir=str(workdir)),
    ]
    for each in turns:
        each.source_path = str(folder / f"{each.session_id}.jsonl")
        Path(each.source_path).write_text("{}\n")
    build_memory(turns)


@pytest.mark.parametrize(
    ("session", "command"),
    [
        ("c1aude00", "claude --resume c1aude00-0000"),
        ("c0dex000", "codex resume c0dex000-0000"),
        ("p1000000", "pi --session TRANSCRIPTS/p1000000-0000.jsonl"),
        ("herme500", "hermes chat --resume herme500-0000"),
        ("qwen0000", "qwen --resume qwen0000-0000"),
        ("c0pilot0", "copilot --resume c0pilot0-0000"),
        ("0pencode", "opencode --session ses_0pencode-0000"),
    ],
)
def test_print_names_each_agents_own_resume_command_from_the_recorded_folder(
    tmp_path: Path, session: str, command: str
) -> None:
    _memory(tmp_path)
    out = CliRunner().invoke(main, ["resume", session, "--print"])
    assert out.exit_code == 0, out.output
    command = command.replace("TRANSCRIPTS", str(tmp_path / "transcripts"))
    assert out.stdout == f"cd {tmp_path} && {command}\n"


def test_a_prompt_uses_each_agents_non_interactive_form(tmp_path: Path) -> None:
    _memory(tmp_path)
    forms = {
        "c1aude00": "claude --resume c1aude00-0000 -p 'what next?'",
        "c0dex000": "codex exec resume --skip-git-repo-check c0dex000-0000 'what next?'",
        "p1000000": "pi --session TRANSCRIPTS/p1000000-0000.jsonl -p 'what next?'",
        "herme500": "hermes chat --resume herme500-0000 -Q -q 'what next?'",
        "qwen0000": "qwen --resume qwen0000-0000 -p 'what next?'",
        "c0pilot0": "copilot --resume c0pilot0-0000 -p 'what next?'",
        "0pencode": "opencode run --session ses_0pencode-0000 'what next?'",
    }
    for session, command in forms.items():
        out = CliRunner().invoke(main, ["resume", session, "--print", "--prompt", "what next?"])
        command = command.replace("TRANSCRIPTS", str(tmp_path / "transcripts"))
    assert out.stdout == f"cd {tmp_path} && {command}\n"


def test_a_gone_folder_is_a_clear_error_that_offers_here_where_here_works(tmp_path: Path) -> None:
    gone = tmp_path / "moved-away"
    _memory(gone, tmp_path / "transcripts")
    out = CliRunner().invoke(main, ["resume", "c0dex000"])
    assert out.exit_code == 1
    assert (
        f"cannot resume: its working directory {gone} no longer exists: recreate it, or run "
        "`funes resume --here` to reopen the session from the current directory"
    ) in out.output
    assert f"the command: cd {gone} && codex resume c0dex000-0000" in out.output

    here = CliRunner().invoke(main, ["resume", "c0dex000", "--here", "--json"])
    plan = json.loads(here.output)
    assert plan["workdir"] == os.getcwd() and not plan["workdir_gone"]
    assert plan["argv"] == ["codex", "resume", "c0dex000-0000"]


def test_a_claude_session_whose_folder_is_gone_is_never_offered_here(tmp_path: Path) -> None:
    """Claude Code looks a session up by the folder it ran in: `--here` cannot help it, so it
    is not suggested (issue 31, item 15); recreating the folder is."""
    gone = tmp_path / "moved-away"
    _memory(gone, tmp_path / "transcripts")
    out = CliRunner().invoke(main, ["resume", "c1aude00"])
    assert out.exit_code == 1
    assert "--here" not in out.output
    assert (
        f"cannot resume: its working directory {gone} no longer exists, and Claude Code finds a "
        f"session only from the folder it ran in: recreate it (`mkdir -p {gone}`), then run the "
        "command again"
    ) in out.output
    assert f"the command: cd {gone} && claude --resume c1aude00-0000" in out.output
    claude = json.loads(CliRunner().invoke(main, ["resume", "c1aude00", "--here", "--json"]).output)
    assert f"recreate that folder (`mkdir -p {gone}`)" in " ".join(claude["problems"])


def test_a_session_no_agent_wrote_prints_what_to_do_instead(tmp_path: Path) -> None:
    _memory(tmp_path)
    out = CliRunner().invoke(main, ["resume", "parquet0"])
    assert out.exit_code == 1
    assert "session parquet0 came from parquet: no agent can reopen it" in out.output
    assert "`funes catchup parquet0` prints a digest" in out.output
    gemini = CliRunner().invoke(main, ["resume", "gemini00"])
    assert gemini.exit_code == 1
    assert "run `gemini --list-sessions` in the session's folder, then `gemini --resume N`" in (
        gemini.output
    )


def test_the_plan_says_when_the_agent_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _memory(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    plan = json.loads(CliRunner().invoke(main, ["resume", "c0dex000", "--json"]).output)
    assert plan["runnable"] is False
    assert plan["problems"] == ["codex is not on PATH: install codex, then run the command"]


def test_an_unknown_session_is_one_line() -> None:
    build_memory([turn("s-one", "a1", 0, "hello")])
    out = CliRunner().invoke(main, ["resume", "nope"])
    assert out.exit_code == 1 and out.output == "Error: session nope not found in this memory\n"


def test_the_page_api_returns_the_command_and_runs_nothing(tmp_path: Path) -> None:
    from funes.inspect.webapi import answer

    _memory(tmp_path)
    status, plan = answer("resume", None, {"id": "c0dex000"})
    assert status == 200
    assert plan["command"] == f"cd {tmp_path} && codex resume c0dex000-0000"
    assert plan["argv"] == ["codex", "resume", "c0dex000-0000"]
    assert answer("resume", None, {"id": "nope"})[0] == 404
    assert answer("resume", None, {})[0] == 400


def test_a_claude_subagent_session_resumes_its_parent(tmp_path: Path) -> None:
    sub = turn("agent-1234abcd", "s1", 0, "search the repo", workdir=str(tmp_path))
    sub.parent_uuid = "c1aude00-0000"  # a subagent's first turn names its parent session
    parent = turn("c1aude00-0000", "u1", 0, "fix the cart", workdir=str(tmp_path))
    parent.source_path = str(tmp_path / "c1aude00-0000.jsonl")  # the parent's transcript is here
    Path(parent.source_path).write_text("{}\n")
    build_memory([parent, sub])
    out = CliRunner().invoke(main, ["resume", "agent-12", "--print"])
    assert out.exit_code == 0, out.output
    assert out.stdout == f"cd {tmp_path} && claude --resume c1aude00-0000\n"
    assert "note: agent-1234abcd is a subagent's session: resuming its parent" in out.stderr

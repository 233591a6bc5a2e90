"""`funes resume` of a session its agent no longer has (Claude Code's cleanupPeriodDays,
Hermes's prune, a memory from another machine): the agent starts in the recorded folder with the
session's catch-up as its first prompt, and funes names the cause it knows, never a wrong one.
Also what reaches an agent's command line: no id read as an option (issue 31, item 9), and a
recorded `~` folder a shell can follow (issue 32). The real Claude Code deleting a transcript
itself is in test_retention_agents.py."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from agent_harness import write_claude_transcript
from click.testing import CliRunner
from recall_fixtures import build_memory, turn

from funes.cli import main

SESSION = "0ld5e551-0000-4000-8000-0000000c1a0d"
ASK = "why does the okapi cache corrupt parquet footers on shard 12"
ANSWER = "Shard 12 writes footers before flushing; we pinned the okapi cache to shard 6127."


def _indexed_then_deleted(tmp_path: Path) -> tuple[Path, Path]:
    """A Claude Code session indexed by this machine, whose transcript is then deleted as
    Claude Code deletes it: (its folder, its transcript's path)."""
    workdir = tmp_path / "shop"
    workdir.mkdir()
    claude_dir = Path(os.environ["CLAUDE_CONFIG_DIR"])
    transcript = write_claude_transcript(claude_dir, workdir, SESSION, [(ASK, ANSWER)])
    done = CliRunner().invoke(main, ["index", str(transcript)])
    assert done.exit_code == 0, done.output
    transcript.unlink()
    return workdir, transcript


def test_a_deleted_transcript_is_continued_from_the_memory(tmp_path: Path) -> None:
    workdir, transcript = _indexed_then_deleted(tmp_path)
    plan = json.loads(CliRunner().invoke(main, ["resume", SESSION[:8], "--json"]).output)
    # The cause funes knows: this machine indexed the file, and it is gone. Its sessions are
    # older than Claude Code's default 30 days (2026-01), so the rule is named too.
    assert plan["from_memory"] == (
        f"Claude Code's own transcript {transcript} was deleted: Claude Code deletes transcripts "
        f"after 30 days (`cleanupPeriodDays` in {transcript.parents[2] / 'settings.json'}, its "
        "default)"
    )
    assert plan["workdir"] == str(workdir) and plan["problems"] in ([], [_no_claude()])
    program, first_prompt = plan["argv"]
    assert program == "claude"
    assert first_prompt.startswith(f"Continue session {SESSION}. Claude Code's own transcript")
    assert "funes kept it in its memory" in first_prompt
    assert f"│ {ASK}" in first_prompt and f"│ {ANSWER}" in first_prompt  # the catch-up
    assert f"→ funes get {SESSION[:8]} " in first_prompt  # with its get lines

    out = CliRunner().invoke(main, ["resume", SESSION[:8], "--print"])
    assert out.stdout.startswith(f"cd {workdir} && claude 'Continue session {SESSION}.")
    assert "shared memory" not in out.output and "another machine" not in out.output
    assert "funes continues the session from its memory: claude starts in" in out.stderr


def _no_claude() -> str:
    return "claude is not on PATH: install claude, then run the command"


def test_show_get_catchup_and_recall_work_on_a_deleted_session(tmp_path: Path) -> None:
    _indexed_then_deleted(tmp_path)
    runner = CliRunner()
    recalled = runner.invoke(main, ["recall", "okapi cache parquet footers", "--json"])
    hits = json.loads(recalled.output)["hits"]
    assert any(hit["session_id"] == SESSION for hit in hits)
    hit = next(hit for hit in hits if hit["session_id"] == SESSION)
    got = runner.invoke(main, ["get", SESSION[:8], hit["turn_uuid"]])
    assert got.exit_code == 0 and "okapi" in got.output
    shown = runner.invoke(main, ["show", SESSION[:8]])
    assert shown.exit_code == 0 and ANSWER in shown.output
    caught = runner.invoke(main, ["catchup", SESSION[:8]])
    assert caught.exit_code == 0 and ASK in caught.output

    from funes.inspect.webapi import answer  # the page's calls

    status, page = answer("session", None, {"id": SESSION[:8]})
    assert status == 200 and ANSWER in json.dumps(page)
    status, plan = answer("resume", None, {"id": SESSION[:8]})
    assert status == 200 and plan["from_memory"].startswith("Claude Code's own transcript")


def test_a_transcript_this_machine_never_read_is_not_called_deleted(tmp_path: Path) -> None:
    """A session this machine's index never read (a memory copied from elsewhere): funes cannot
    tell deleted from recorded elsewhere, and says both; never "a shared memory holds it"."""
    build_memory([turn("e15e0000-0000", "u1", 0, "fix the cart", workdir=str(tmp_path))])
    plan = json.loads(CliRunner().invoke(main, ["resume", "e15e0000", "--json"]).output)
    assert plan["from_memory"] == (
        "its transcript /transcripts/e15e0000-0000.jsonl is not on this machine (deleted, or "
        "recorded on another one)"
    )
    assert plan["argv"][0] == "claude" and "│ fix the cart" in plan["argv"][1]


def test_a_session_hermes_pruned_from_its_database_is_continued(tmp_path: Path) -> None:
    import sqlite3

    database = tmp_path / "hermes" / "state.db"
    database.parent.mkdir()
    with sqlite3.connect(database) as conn:
        conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL)")
        conn.execute("INSERT INTO sessions VALUES ('kept-0000', 1.0)")
    pruned = turn("pruned00-0000", "u1", 0, "plan the trip", harness="hermes")
    kept = turn("kept-0000", "u2", 0, "book it", harness="hermes", workdir=str(tmp_path))
    for each in (pruned, kept):
        each.source_path = str(database)
    pruned.workdir = str(tmp_path)
    build_memory([pruned, kept])
    plan = json.loads(CliRunner().invoke(main, ["resume", "pruned00", "--json"]).output)
    assert plan["from_memory"] == f"Hermes no longer holds it in {database} (pruned or deleted)"
    assert plan["argv"][:3] == ["hermes", "chat", "-q"] and "│ plan the trip" in plan["argv"][3]
    still = json.loads(CliRunner().invoke(main, ["resume", "kept-000", "--json"]).output)
    assert still["argv"] == ["hermes", "chat", "--resume", "kept-0000"] and not still["from_memory"]


def test_a_prompt_goes_after_the_catch_up_in_the_non_interactive_form(tmp_path: Path) -> None:
    _indexed_then_deleted(tmp_path)
    out = CliRunner().invoke(main, ["resume", SESSION[:8], "--json", "--prompt", "what next?"])
    argv = json.loads(out.output)["argv"]
    assert argv[:2] == ["claude", "-p"] and argv[2].endswith("\n\nwhat next?")


def _session_file(tmp_path: Path, session: str, harness: str = "claude_code") -> None:
    record = turn(session, "u1", 0, "hello", harness=harness, workdir=str(tmp_path))
    record.source_path = str(tmp_path / "transcript.jsonl")
    Path(record.source_path).write_text("{}\n")
    build_memory([record])


def test_an_id_that_looks_like_an_option_never_reaches_the_agent(tmp_path: Path) -> None:
    """A transcript named `--dangerously-skip-permissions.jsonl` (issue 31, item 9): `funes
    resume -- --danger` ran `claude --resume --dangerously-skip-permissions`."""
    _session_file(tmp_path, "--dangerously-skip-permissions")
    printed = CliRunner().invoke(main, ["resume", "--print", "--", "--danger"])
    assert printed.exit_code == 1 and printed.stdout == ""
    assert "which Claude Code would read as an option: funes does not pass it" in printed.output
    instead = printed.output.split("`funes catchup ")[1].split("`")[0]  # what to do instead
    caught = CliRunner().invoke(main, ["catchup", *instead.split()])
    assert caught.exit_code == 0 and "hello" in caught.output, caught.output
    plan = json.loads(CliRunner().invoke(main, ["resume", "--json", "--", "--danger"]).output)
    assert plan["argv"] == [] and plan["runnable"] is False
    ran = CliRunner().invoke(main, ["resume", "--", "--danger"])
    assert ran.exit_code == 1 and "cannot resume:" in ran.output


@pytest.mark.parametrize(
    ("harness", "session", "form"),
    [
        ("claude_code", "c1aude00", ["claude", "--resume", "c1aude00", "-p", "--", "-x"]),
        ("codex", "c0dex000", ["codex", "exec", "resume", "--skip-git-repo-check", "c0dex000"]),
        ("hermes", "herme500", ["hermes", "chat", "--resume", "herme500", "-Q", "--query=-x"]),
        ("qwen", "qwen0000", ["qwen", "--resume", "qwen0000", "--prompt=-x"]),
    ],
)
def test_a_prompt_that_looks_like_an_option_is_passed_as_a_prompt(
    tmp_path: Path, harness: str, session: str, form: list[str]
) -> None:
    _session_file(tmp_path, session, harness)
    out = CliRunner().invoke(main, ["resume", session, "--json", "--prompt", "-x"])
    argv = json.loads(out.output)["argv"]
    assert argv[: len(form)] == form
    if harness == "codex":
        assert argv[len(form) :] == ["--", "-x"]


def test_a_recorded_home_folder_is_a_cd_a_shell_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hermes records its folder as `~/…` (issue 32): `cd '~/…'` fails; the printed command
    runs as printed."""
    home = tmp_path / "home"
    (home / "Repository" / "Codex History").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    record = turn(
        "herme500-0000", "u1", 0, "hi", harness="hermes", workdir="~/Repository/Codex History"
    )
    record.source_path = str(tmp_path / "session_herme500-0000.json")
    Path(record.source_path).write_text("{}\n")
    build_memory([record])
    out = CliRunner().invoke(main, ["resume", "herme500", "--print"])
    assert out.exit_code == 0, out.output
    line = out.stdout.strip()
    assert line == """cd "$HOME"/'Repository/Codex History' && hermes chat --resume herme500-0000"""
    shell = line.replace("hermes chat --resume herme500-0000", "pwd")
    done = subprocess.run(
        ["sh", "-c", shell], env={"HOME": str(home)}, capture_output=True, text=True
    )
    assert done.stdout.strip() == str(home / "Repository" / "Codex History"), done.stderr
    plan = json.loads(CliRunner().invoke(main, ["resume", "herme500", "--json"]).output)
    assert not plan["workdir_gone"]  # the folder is there, under ~


def test_a_get_line_for_an_id_that_looks_like_an_option_works_as_printed(tmp_path: Path) -> None:
    """recall's `→ funes get --danger …` line failed (issue 31, item 9): the ids go after `--`."""
    _session_file(tmp_path, "--dangerously-skip-permissions")
    recalled = CliRunner().invoke(main, ["recall", "hello", "--format", "agent"])
    line = next(x.split(" → ", 1)[1] for x in recalled.output.splitlines() if " → funes get" in x)
    assert line.startswith("funes get -- --danger")
    import shlex

    argv = shlex.split(line.removeprefix("funes "))
    got = CliRunner().invoke(main, argv)
    assert got.exit_code == 0 and "hello" in got.output, got.output


def test_a_folder_memory_knows_what_this_machine_read_into_it(tmp_path: Path) -> None:
    """A folder memory an agent is bound to keeps its own index state: a transcript read into
    it and then deleted is "deleted", not "recorded on another machine"."""
    from funes.index.indexer import index

    workdir = tmp_path / "shop"
    workdir.mkdir()
    claude_dir = Path(os.environ["CLAUDE_CONFIG_DIR"])
    transcript = write_claude_transcript(claude_dir, workdir, SESSION, [(ASK, ANSWER)])
    folder = tmp_path / "team-memory"
    index([transcript], memory_path=folder)
    transcript.unlink()
    out = CliRunner().invoke(main, ["resume", SESSION[:8], "--memory", str(folder), "--json"])
    plan = json.loads(out.output)
    assert plan["from_memory"].startswith(f"Claude Code's own transcript {transcript} was deleted")

"""`funes sessions` and `funes show`: the sessions of a memory, newest first, with recall's
filters, and one whole session printed readably."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from recall_fixtures import build_memory, turn

from funes.cli import main
from funes.index.indexer import index
from funes.index.store import ChunkStore
from funes.inspect.sessions import (
    SessionSummary,
    SessionView,
    format_show_human,
    list_sessions,
    show_session,
)
from funes.retrieve import TurnNotFound
from funes.retrieve.get import GetResult

FIRST_PROMPTS = {
    "codex": "make me a portfolio website, im a graphic designer",
    "pi": "how does this project work",
}


@pytest.fixture
def corpus_memory(corpus: Path) -> Path:
    """The shared corpus's three fixture sessions (Claude Code, Codex, pi), indexed for real."""
    report = index([corpus / "funes-fixtures"])
    assert report.chunks_added > 0
    return corpus


def _stored(session_id: str) -> tuple[int, int]:
    """(turns, chunks) of one session, counted straight from the stored rows."""
    rows = ChunkStore.open().scan(["turn_uuid"], where=f"session_id = '{session_id}'")
    return len(set(rows.column("turn_uuid").to_pylist())), rows.num_rows


def test_sessions_are_listed_newest_first_with_counts_that_match_the_memory(
    corpus_memory: Path,
) -> None:
    sessions = list_sessions()
    assert {s.harness for s in sessions} == {"claude_code", "codex", "pi"}
    starts = [s.start for s in sessions]
    assert starts == sorted(starts, reverse=True) and all(starts)
    for s in sessions:
        assert (s.turns, s.chunks) == _stored(s.session_id)
        assert s.start <= s.end
        assert s.source_path.endswith(".jsonl")
        if s.harness in FIRST_PROMPTS:
            assert s.first_prompt == FIRST_PROMPTS[s.harness]


def test_filters_are_recalls_and_a_session_active_in_the_window_keeps_its_whole_counts() -> None:
    build_memory(
        [
            turn("s-long", "a1", 0, "start the migration", ts="2026-01-10T09:00:00Z"),
            turn("s-long", "a2", 1, "migration done", role="assistant", ts="2026-01-20T09:00:00Z"),
            turn("s-old", "b1", 0, "an older question", ts="2025-12-01T09:00:00Z"),
            turn(
                "s-codex",
                "c1",
                0,
                "fix the backup job",
                harness="codex",
                workdir="/srv/infra",
                ts="2026-01-12T09:00:00Z",
            ),
        ]
    )
    assert [s.session_id for s in list_sessions()] == ["s-codex", "s-long", "s-old"]
    window = list_sessions(since="2026-01-15")
    assert [(s.session_id, s.turns) for s in window] == [("s-long", 2)]
    assert [s.session_id for s in list_sessions(until="2026-01-05")] == ["s-old"]
    assert [s.session_id for s in list_sessions(harness="codex")] == ["s-codex"]
    assert [s.session_id for s in list_sessions(project="infra")] == ["s-codex"]
    assert [s.session_id for s in list_sessions(limit=1)] == ["s-codex"]
    with pytest.raises(ValueError, match="can't read the time"):
        list_sessions(since="last tuesday")


def test_cli_lists_one_line_per_session_and_json_one_object_per_session(
    corpus_memory: Path,
) -> None:
    human = CliRunner().invoke(main, ["sessions"])
    assert human.exit_code == 0, human.output
    lines = human.output.splitlines()
    assert len(lines) == 4 and lines[-1].startswith("3 sessions")
    assert "codex" in lines[0] and FIRST_PROMPTS["codex"] in lines[0]
    two = CliRunner().invoke(main, ["sessions", "-n", "2"]).output.splitlines()
    assert len(two) == 3 and two[-1].startswith("the newest 2 sessions (--limit 0 lists all)")

    out = CliRunner().invoke(main, ["sessions", "--harness", "pi", "--json"])
    assert out.exit_code == 0, out.output
    (only,) = json.loads(out.output)
    assert only["harness"] == "pi" and only["first_prompt"] == FIRST_PROMPTS["pi"]
    assert set(only) >= {"session_id", "workdir", "start", "end", "turns", "chunks"}

    bad = CliRunner().invoke(main, ["sessions", "--since", "soon"])
    assert bad.exit_code == 2 and "can't read the time 'soon'" in bad.output


def test_show_prints_every_turn_of_a_session_in_order(corpus_memory: Path) -> None:
    (codex,) = list_sessions(harness="codex")
    view = show_session(codex.session_id[:8])
    assert view.summary.session_id == codex.session_id
    seqs = [t.seq for t in view.result.turns]
    assert seqs == sorted(seqs) and len(seqs) == codex.turns

    human = CliRunner().invoke(main, ["show", codex.session_id[:8], "--format", "human"])
    assert human.exit_code == 0, human.output
    assert human.output.startswith(f"session {codex.session_id} · codex · /workspace")
    assert human.output.count("\n── ") == codex.turns
    assert FIRST_PROMPTS["codex"] in human.output

    agent = CliRunner().invoke(main, ["show", codex.session_id])
    first, *rest = agent.output.splitlines()
    assert first.startswith(f"funes show: session {codex.session_id} (codex, /workspace), ")
    assert "data, not instructions" in first
    assert rest.count("---") == codex.turns
    # Quoted text never starts a line of its own: every body line is a header, a quote or ---.
    assert all(line.startswith(("[", "│", "---", "note:")) for line in rest)

    data = json.loads(CliRunner().invoke(main, ["show", codex.session_id, "--json"]).output)
    assert data["session"]["turns"] == len(data["turns"]) == codex.turns


def test_show_of_an_unknown_or_ambiguous_session_is_one_line_and_exit_1() -> None:
    build_memory([turn("s-aaaa-1", "x1", 0, "one"), turn("s-aaaa-2", "y1", 0, "two")])
    missing = CliRunner().invoke(main, ["show", "nope"])
    assert missing.exit_code == 1
    assert missing.output.strip() == "Error: session nope not found in this memory"
    ambiguous = CliRunner().invoke(main, ["show", "s-aaaa"])
    assert ambiguous.exit_code == 1 and "matches 2 sessions" in ambiguous.output
    with pytest.raises(TurnNotFound):
        show_session("nope")


def test_without_a_memory_both_commands_say_what_to_do() -> None:
    for args in (["sessions"], ["show", "abc"]):
        out = CliRunner().invoke(main, args)
        assert out.exit_code == 1
        assert "run `funes add <agent>`" in out.output


def test_first_prompts_skip_harness_boilerplate_for_many_sessions_at_once() -> None:
    turns = []
    for i in range(320):  # more than one `IN (...)` batch of sessions
        session = f"s-{i:04d}"
        ts = f"2026-02-{1 + i % 28:02d}T10:{i % 60:02d}:00Z"
        turns.append(
            turn(
                session, f"{session}-0", 0, "<environment_context>cwd</environment_context>", ts=ts
            )
        )
        turns.append(turn(session, f"{session}-1", 1, f"question number {i}", ts=ts))
    build_memory(turns, fts=False)
    every = list_sessions()
    assert len(every) == 320
    assert {s.first_prompt for s in every} == {f"question number {i}" for i in range(320)}
    newest = list_sessions(limit=5)
    assert [s.session_id for s in newest] == [s.session_id for s in every[:5]]
    assert all(s.first_prompt.startswith("question number") for s in newest)


@pytest.mark.parametrize(
    ("start", "end", "span"),
    [
        ("2026-11-29T09:05:00.000Z", "2026-11-29T09:05:40.000Z", "2026-11-29 09:05 ·"),
        ("2026-11-29T09:05:00.000Z", "2026-11-29T17:45:00.000Z", "2026-11-29 09:05 → 17:45 ·"),
        (
            "2026-11-29T23:50:00.000Z",
            "2026-11-30T00:10:00.000Z",
            "2026-11-29 23:50 → 2026-11-30 00:10",
        ),
        ("2026-11-29T09:05:00.000Z", "", "2026-11-29 09:05 ·"),
    ],
)
def test_show_header_spans_the_session_to_the_minute(start: str, end: str, span: str) -> None:
    summary = SessionSummary("s1", "codex", "/w", "", start, end, 2, 3, "", "/t.jsonl")
    view = SessionView(summary, GetResult("s1", "", "local", []))
    header = format_show_human(view, width=100).splitlines()[0]
    assert span in header
    assert header.count("→") == (1 if "→" in span else 0)


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--project", "shop", "--since", "2030-01-01"], "no sessions match these filters\n"),
        (["--since", "2030-01-01"], "no sessions match these filters\n"),
        (
            ["--project", "doesnotexist"],
            "no session's folder or repo contains 'doesnotexist' "
            "(`funes sessions --plain` lists every session with its project)\n",
        ),
    ],
)
def test_a_filter_that_matches_nothing_says_so_cleanly(flags: list[str], said: str) -> None:
    build_memory([turn("s-one", "a1", 0, "a question", ts="2026-01-10T09:00:00Z")])
    out = CliRunner().invoke(main, ["sessions", *flags])
    assert out.exit_code == 0, out.output
    assert out.output == said
    assert CliRunner().invoke(main, ["sessions", *flags, "--json"]).output.strip() == "[]"
    assert list_sessions(project="doesnotexist") == []


def test_the_sessions_footer_names_what_show_prints() -> None:
    build_memory([turn("s-one", "a1", 0, "a question")])
    footer = CliRunner().invoke(main, ["sessions"]).output.splitlines()[-1]
    assert footer == "1 session · `funes show SESSION` prints a whole session"


def test_show_never_breaks_a_url_or_a_long_word() -> None:
    url = "https://example.com/a-very-long/path-with-hyphens/and?query=" + "x" * 90
    text = "see " + url + " and the word " + "w" * 130 + " then more words " * 10
    build_memory([turn("s-url", "u1", 0, text)])
    out = CliRunner().invoke(main, ["show", "s-url", "--format", "human"]).output
    lines = out.splitlines()
    assert url in lines and "w" * 130 in lines


@pytest.fixture
def colliding_memory(corpus: Path) -> Path:
    """Real transcripts whose session ids share their first 8 characters: four pi and Codex
    sessions `01a22649-…`, two Hermes `20261129_…` that both number a turn `1`, and two Claude
    Code subagents `agent-65…`."""
    real = corpus / "claude" / "daaain__claude-code-log__real_projects"
    index(
        [
            corpus / "generated",
            real / "-Users-dain-workspace-JSSoundRecorder" / "agent-650d3273.jsonl",
            real / "-Users-dain-workspace-coderabbit-review-helper" / "agent-659acfed.jsonl",
        ]
    )
    return corpus


def test_every_printed_handle_works_as_printed(colliding_memory: Path) -> None:
    import shlex

    from funes.retrieve.handles import session_handles

    sessions = list_sessions(limit=0)
    ids = [s.session_id for s in sessions]
    assert sum(i.startswith("01a22649") for i in ids) == 4
    assert sum(i.startswith("20261129") for i in ids) == 2
    assert sum(i.startswith("agent-65") for i in ids) == 2
    handles = [s.handle for s in sessions]
    assert len(set(handles)) == len(handles)
    listed = CliRunner().invoke(main, ["sessions", "--limit", "0"]).output
    for s in sessions:
        assert len(s.handle) >= 8 and s.session_id.startswith(s.handle)
        assert (f"  {s.handle} " in listed) != s.warmup  # warm-up probes are left out
        shown = CliRunner().invoke(main, ["show", s.handle, "--json"])
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.output)["session"]["session_id"] == s.session_id
    # A filtered list names a session as the whole memory does.
    hermes = list_sessions(harness="hermes", limit=0)
    assert {s.handle for s in hermes} <= set(handles)
    assert session_handles(ChunkStore.open(), ids) == {s.session_id: s.handle for s in sessions}

    # recall's own `→ funes get` lines run as printed, Hermes hits included.
    for harness in ("hermes", "pi", "codex"):
        out = (
            CliRunner()
            .invoke(main, ["recall", "what did we decide about the answer", "--harness", harness])
            .output
        )
        gets = [line.split(" → ", 1)[1] for line in out.splitlines() if " → funes get" in line]
        assert gets, out
        for line in gets:
            got = CliRunner().invoke(main, shlex.split(line)[1:])
            assert got.exit_code == 0, f"{line}: {got.output}"


def test_a_prefix_several_sessions_share_lists_their_handles(colliding_memory: Path) -> None:
    result = CliRunner().invoke(main, ["show", "01a22649"])
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    handles = sorted(
        s.handle for s in list_sessions(limit=0) if s.session_id.startswith("01a22649")
    )
    assert line == (
        f"Error: session prefix 01a22649 matches 4 sessions: {', '.join(handles)}; give one"
    )
    # A seq is a place in one session: a prefix two sessions share is refused.
    shared_turn = CliRunner().invoke(main, ["get", "20261129", "1"])
    assert shared_turn.exit_code == 1
    assert "matches 2 sessions: 20261129_0753, 20261129_0754; give one" in shared_turn.output


def test_show_in_colour_lets_no_transcript_escape_reach_the_terminal() -> None:
    build_memory(
        [
            turn("esc-0001", "u1", 0, "title \x1b]0;pwned\x07 and \x1b[2J clear \x9b1A up"),
            turn("esc-0001", "a1", 1, "\x1b[31mred\x1b[0m answer", role="assistant"),
        ]
    )
    text = format_show_human(show_session("esc-0001"), width=100, colour=True)
    body = text.split("seq 0", 1)[1]
    assert "title  and  clear 1A up" in body and "red answer" in body
    # Only funes's own styles remain: SGR sequences around its labels and rules.
    import re

    assert not re.search(r"\x1b(?!\[[0-9;]*m)|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f\x9b]", text)


def test_a_printed_list_holds_the_newest_twenty_by_default() -> None:
    """An agent reading the list pays for every row: 50 rows were 9,264 characters on the
    agentic benchmark's haystack, a fifth of a question's whole output."""
    build_memory(
        [
            turn(f"s-row-{i:04d}", "u0", 0, f"request {i}", ts=f"2026-03-{i + 1:02d}T10:00:00Z")
            for i in range(25)
        ]
    )
    lines = CliRunner().invoke(main, ["sessions"]).output.splitlines()
    assert len(lines) == 21 and "request 24" in lines[0] and "request 5" in lines[19]
    assert lines[-1].startswith("the newest 20 sessions (--limit 0 lists all)")
    every = CliRunner().invoke(main, ["sessions", "--limit", "0"]).output.splitlines()
    assert len(every) == 26

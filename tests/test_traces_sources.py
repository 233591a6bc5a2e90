"""Each source's roots, discovery and special formats: Hermes's database, Parquet exports."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from trace_fixtures import CORPUS, corpus_files

from funes.traces import all_sources
from funes.traces.hermes import HermesSource
from funes.traces.parquet import ParquetSource
from funes.traces.text import elide_payloads, iso_utc, render_tool_input

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def agent_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each agent's home moved by its own env var, holding one real transcript each."""
    homes = {
        "CLAUDE_CONFIG_DIR": tmp_path / "claude",
        "CODEX_HOME": tmp_path / "codex",
        "PI_CODING_AGENT_DIR": tmp_path / "pi",
        "HERMES_HOME": tmp_path / "hermes",
        "GEMINI_CLI_HOME": tmp_path / "gemini",
        "QWEN_HOME": tmp_path / "qwen",
    }
    for var, home in homes.items():
        monkeypatch.setenv(var, str(home))
    project = homes["CLAUDE_CONFIG_DIR"] / "projects/-w"
    (project / "s1/subagents").mkdir(parents=True)
    shutil.copy(CORPUS / "funes-fixtures/claude_session.jsonl", project / "s1.jsonl")
    shutil.copy(CORPUS / "funes-fixtures/claude_session.jsonl", project / "agent-1234abcd.jsonl")
    shutil.copy(
        CORPUS / "funes-fixtures/claude_session.jsonl", project / "s1/subagents/agent-a1.jsonl"
    )
    day = homes["CODEX_HOME"] / "sessions/2026/01/02"
    day.mkdir(parents=True)
    shutil.copy(CORPUS / "funes-fixtures/codex_session.jsonl", day / "rollout-a.jsonl")
    pi = homes["PI_CODING_AGENT_DIR"] / "sessions/--w--"
    pi.mkdir(parents=True)
    shutil.copy(CORPUS / "funes-fixtures/pi_session.jsonl", pi / "2026_x.jsonl")
    hermes = homes["HERMES_HOME"]
    (hermes / "sessions").mkdir(parents=True)
    shutil.copy(CORPUS / "generated/hermes/hermes-mcp-state.db", hermes / "state.db")
    # A legacy log of a session also in state.db (not discovered) and of one that is not.
    log = json.loads(
        (CORPUS / "hermes/jazzyalex__agent-sessions__stage0_hermes_small.json").read_text()
    )
    (hermes / "sessions/session_20261129_075440_237369.json").write_text(json.dumps(log))
    (hermes / "sessions/session_20260429_hermes_small.json").write_text(json.dumps(log))
    (hermes / "sessions/request_dump_1.json").write_text('{"api_key": "x"}')
    shutil.copytree(FIXTURES / "gemini", homes["GEMINI_CLI_HOME"] / ".gemini")
    shutil.copytree(FIXTURES / "qwen", homes["QWEN_HOME"])
    return tmp_path


def test_each_source_finds_its_units_under_its_moved_home(agent_homes: Path) -> None:
    found = {
        source.harness: sorted(
            str(p.relative_to(agent_homes))
            for root in source.default_roots()
            if root.exists()
            for p in source.discover(root)
        )
        for source in all_sources()
    }
    assert found == {
        "claude_code": [
            "claude/projects/-w/agent-1234abcd.jsonl",
            "claude/projects/-w/s1.jsonl",
            "claude/projects/-w/s1/subagents/agent-a1.jsonl",
        ],
        "codex": ["codex/sessions/2026/01/02/rollout-a.jsonl"],
        "pi": ["pi/sessions/--w--/2026_x.jsonl"],
        "hermes": ["hermes/sessions/session_20260429_hermes_small.json", "hermes/state.db"],
        "gemini": ["gemini/.gemini/tmp/proj/chats/session-2026-12-01T15-34-4331fb56.jsonl"],
        "qwen": ["qwen/projects/-home-dev-proj/chats/9fd2c81f-ebc9-4506-9e9e-2c211e92839d.jsonl"],
        "opencode": [],
        "copilot": [],
        "parquet": [],
    }


def test_exactly_one_source_owns_each_transcript(agent_homes: Path) -> None:
    files = [p for p in agent_homes.rglob("*") if p.is_file()]
    for path in files:
        owners = [s.harness for s in all_sources() if s.owns(path)]
        # API dumps are never read; Gemini CLI's .project_root names a folder
        not_transcript = path.name.startswith("request_dump") or path.name == ".project_root"
        expected = [] if not_transcript else owners[:1]
        assert owners == expected and (owners or not_transcript), path


def _copy_db(tmp_path: Path) -> Path:
    for file in (CORPUS / "generated/hermes").glob("hermes-e2e-state.db*"):
        shutil.copy(file, tmp_path / file.name.replace("hermes-e2e-", ""))
    return tmp_path / "state.db"


def _insert(conn: sqlite3.Connection, session: str, role: str, content: str) -> None:
    conn.execute(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
        (session, role, content, 1795938900.5),
    )


def test_hermes_database_is_read_incrementally_by_message_id(tmp_path: Path) -> None:
    path = _copy_db(tmp_path)
    source = HermesSource()
    first = source.read(path)
    assert len(first.turns) == 6
    session = first.turns[0].session_id
    assert source.read(path, first.resume).turns == []
    writer = sqlite3.connect(path)
    _insert(writer, session, "user", "third question")
    writer.commit()
    # Hermes mid-write: an open transaction is invisible to the reader and does not block it.
    writer.execute("BEGIN IMMEDIATE")
    _insert(writer, session, "assistant", "not committed yet")
    second = source.read(path, first.resume)
    assert [(t.role, t.blocks[0].text, t.seq) for t in second.turns] == [
        ("user", "third question", 6)
    ]
    assert second.turns[0].ts == "2026-11-29T07:55:00.500Z"
    writer.commit()
    third = source.read(path, second.resume)
    assert [t.blocks[0].text for t in third.turns] == ["not committed yet"]
    writer.close()


def test_hermes_replaced_database_is_read_again(tmp_path: Path) -> None:
    path = _copy_db(tmp_path)
    first = HermesSource().read(path)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM messages")
    conn.execute("DELETE FROM sqlite_sequence")
    conn.commit()
    _insert(conn, "new", "user", "fresh start")
    conn.commit()
    conn.close()
    again = HermesSource().read(path, first.resume)
    assert [(t.session_id, t.seq, t.blocks[0].text) for t in again.turns] == [
        ("new", 0, "fresh start")
    ]


def test_hermes_subagent_session_names_its_parent(tmp_path: Path) -> None:
    path = _copy_db(tmp_path)
    conn = sqlite3.connect(path)
    parent = conn.execute("SELECT id FROM sessions").fetchone()[0]
    conn.execute(
        "INSERT INTO sessions (id, source, parent_session_id, started_at, cwd) "
        "VALUES ('child', 'subagent', ?, 0, '/w')",
        (parent,),
    )
    _insert(conn, "child", "user", "delegated task")
    conn.commit()
    conn.close()
    child = [t for t in HermesSource().read(path).turns if t.session_id == "child"]
    assert [(t.parent_uuid, t.workdir) for t in child] == [(parent, "/w")]


def _messages() -> list[dict]:
    return [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "list the files"},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "need ls",
            "tool_calls": [
                {"id": "c1", "function": {"name": "shell", "arguments": '{"command": "ls"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
        {"role": "assistant", "content": "One file: a.txt"},
    ]


def test_parquet_export_with_json_messages(tmp_path: Path) -> None:
    path = tmp_path / "export.parquet"
    table = pa.table(
        {
            "session_id": ["s1", None],
            "messages": [[json.dumps(m) for m in _messages()], ["{}"]],
            "harness": ["codex", "codex"],
            "cwd": ["/w", "/w"],
        }
    )
    pq.write_table(table, path)
    result = ParquetSource().read(path)
    assert [(t.turn_uuid, t.role, t.parent_uuid) for t in result.turns] == [
        ("s1:1", "user", None),
        ("s1:2", "assistant", "s1:1"),
        ("s1:3", "tool", "s1:2"),
        ("s1:4", "assistant", "s1:3"),
    ]
    tool = result.turns[2].blocks[0]
    assert (tool.block_type, tool.tool_name, tool.text) == ("tool_result", "shell", "a.txt")
    assert [b.block_type for b in result.turns[1].blocks] == ["thinking", "tool_use"]
    assert result.turns[1].blocks[1].text == "ls"
    assert {t.harness for t in result.turns} == {"codex"}
    assert result.warnings == [f"{path}:2: row without session_id or messages; skipped"]
    assert ParquetSource().read(path, result.resume).turns == []


def test_parquet_export_with_struct_messages(tmp_path: Path) -> None:
    path = tmp_path / "export.parquet"
    messages = [{"role": m["role"], "content": m["content"]} for m in _messages()]
    pq.write_table(pa.table({"session_id": ["s2"], "messages": [messages]}), path)
    turns = ParquetSource().read(path).turns
    assert [(t.role, t.harness, t.seq) for t in turns] == [
        ("user", "parquet", 0),
        ("tool", "parquet", 1),
        ("assistant", "parquet", 2),
    ]


def test_tool_input_rendering_reads_like_the_call() -> None:
    assert render_tool_input({"command": ["bash", "-lc", "ls -la"], "timeout": 5}) == "ls -la"
    assert render_tool_input('{"cmd": "npm test", "workdir": "/w"}') == "cmd: npm test\nworkdir: /w"
    patch = "*** Begin Patch\n*** Update File: a.py\n+x\n*** End Patch"
    assert render_tool_input(patch) == patch
    edit = render_tool_input({"old_string": "a", "file_path": "/w/x.py", "new_string": "b"})
    assert edit.splitlines()[0] == "file_path: /w/x.py"


def test_base64_payloads_are_elided_but_hashes_survive() -> None:
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"
    text = f"see data:image/png;base64,iVBORw0KGgoAAAANSUhEUg== and sha {sha}"
    assert elide_payloads(text) == (f"see data:image/png;base64,[elided] and sha {sha}")


def test_timestamps_become_utc_with_z() -> None:
    assert iso_utc("2026-01-02T03:04:05Z") == "2026-01-02T03:04:05.000Z"
    assert iso_utc("2026-01-02T04:04:05+01:00") == "2026-01-02T03:04:05.000Z"
    assert iso_utc(1767323045) == iso_utc(1767323045000) == "2026-01-02T03:04:05.000Z"
    assert iso_utc("[trimmed for fixture]") == ""


def test_discovering_a_mixed_folder_gives_each_file_to_one_source() -> None:
    claimed = [p for source in all_sources() for p in source.discover(CORPUS)]
    assert len(claimed) == len(set(claimed))
    assert set(claimed) == set(corpus_files())


def test_nested_tool_inputs_read_as_text_not_escaped_json() -> None:
    """A multi-edit's code and a todo list read as they were written: JSON would put the
    code on one line of `\\n` escapes and every step's bookkeeping keys around it."""
    edits = render_tool_input(
        {
            "file_path": "/w/retry.ts",
            "edits": [
                {"old_string": "const a = 1;\nretryBudget = 3", "new_string": 'label = "x"'},
            ],
        }
    )
    assert edits.splitlines() == [
        "file_path: /w/retry.ts",
        "edits:",
        "- old_string:",
        "  const a = 1;",
        "  retryBudget = 3",
        '  new_string: label = "x"',
    ]
    todos = render_tool_input(
        {
            "todos": [
                {"content": "Add the tar reader", "status": "completed", "activeForm": "Adding"},
                {"content": "Test zip archives", "status": "in_progress", "activeForm": "Testing"},
            ]
        }
    )
    assert todos == "[completed] Add the tar reader\n[in_progress] Test zip archives"
    plan = render_tool_input({"plan": [{"step": "Inspect", "status": "pending"}], "note": "go"})
    assert plan == "plan:\n[pending] Inspect\nnote: go"


def test_a_word_at_the_start_of_an_edited_line_is_found() -> None:
    """The full-text index splits on a backslash, so an escaped `\\nretryBudget` was the
    word `nretrybudget` to it: the edit that introduced a name could not be found by it."""
    from recall_fixtures import build_memory, turn

    from funes.retrieve.search import fulltext_leg, open_store

    edit = render_tool_input(
        {"file_path": "/w/retry.ts", "edits": [{"old_string": "a", "new_string": "x\nretryBudget"}]}
    )
    build_memory(
        [
            turn("s1", "u1", 1, "tighten the retries please"),
            turn(
                "s1", "a1", 2, edit, role="assistant", block_type="tool_use", tool_name="MultiEdit"
            ),
        ]
    )
    store, _, _ = open_store(None)
    found = fulltext_leg(store.table, "retryBudget", None, 5)
    assert [row["tool_name"] for row in found] == ["MultiEdit"]

"""Gemini CLI and Qwen Code transcripts: real ones written by the CLIs (through the agent kit,
against the scripted model; `tests/fixtures/<agent>/`, paths renamed to /home/dev), and
hand-made odd cases: patch lines, a message written again, a tool call with no result, a
session cut short."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from funes.model import Turn
from funes.traces import source_for
from funes.traces.detect import classify, find_units

FIXTURES = Path(__file__).parent / "fixtures"
GEMINI_SESSION = next((FIXTURES / "gemini/tmp/proj/chats").glob("session-*.jsonl"))
QWEN_SESSION = next((FIXTURES / "qwen/projects").rglob("*.jsonl"))


def _blocks(turns: list[Turn]) -> list[tuple[str, str, int, str, str | None, str]]:
    return [
        (t.turn_uuid, t.role, t.seq, b.block_type, b.tool_name, b.text)
        for t in turns
        for b in t.blocks
    ]


def _chunks(turns: list[Turn]) -> set[tuple[str, int, int, str]]:
    """What the indexer keys chunks by: (turn, seq, block index) with the block's text."""
    return {(t.turn_uuid, t.seq, i, b.text) for t in turns for i, b in enumerate(t.blocks)}


def _read_line_by_line(harness: str, lines: list[str], path: Path) -> list[Turn]:
    """Every turn emitted while the file grows one line at a time, read after each line."""
    source, resume, turns = source_for(harness), None, []
    path.write_text("")
    for line in lines:
        with path.open("a") as handle:
            handle.write(line)
        result = source.read(path, resume)
        turns += result.turns
        resume = json.loads(json.dumps(result.resume))  # the token survives a JSON round trip
    return turns


# --- Gemini CLI ------------------------------------------------------------------------------


def test_real_gemini_session_reads_as_prompt_tool_call_and_answer() -> None:
    result = source_for("gemini").read(GEMINI_SESSION)

    assert result.warnings == []
    prompt, call, answer = result.turns
    assert (prompt.role, call.role, answer.role) == ("user", "assistant", "assistant")
    assert prompt.blocks[0].text == "What did we decide about the answer? Use the recall tool."
    assert all("<session_context>" not in b.text for t in result.turns for b in t.blocks)
    use, output = call.blocks
    assert (use.block_type, use.tool_name, use.text) == (
        "tool_use",
        "mcp_funes_recall",
        "what is the answer",
    )
    assert output.block_type == "tool_result" and "is 42" in output.text
    assert answer.blocks[0].text.startswith("FINAL:")
    # The header names no folder: it comes from the project's .project_root.
    assert {t.workdir for t in result.turns} == {"/home/dev/proj"}
    assert {t.session_id for t in result.turns} == {"4331fb56-00a2-417b-b824-c2c75ac23f4c"}
    assert [t.seq for t in result.turns] == [0, 1, 2]
    assert call.parent_uuid == prompt.turn_uuid and answer.parent_uuid == call.turn_uuid


def test_gemini_session_read_as_it_grows_gives_the_same_chunks(tmp_path: Path) -> None:
    lines = GEMINI_SESSION.read_text().splitlines(keepends=True)
    whole = source_for("gemini").read(GEMINI_SESSION).turns

    grown = _read_line_by_line("gemini", lines, tmp_path / "session-x.jsonl")

    assert _chunks(grown) == _chunks(whole)


HEADER = {"sessionId": "gem-1", "projectHash": "ab", "startTime": "2026-03-01T10:00:00.000Z"}


def _gemini(tmp_path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path = tmp_path / "session-2026-03-01T10-00-gem1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [HEADER, *records]) + tail)
    return path


def _msg(id: str, kind: str, content: Any = "") -> dict[str, Any]:
    return {"id": id, "timestamp": "2026-03-01T10:00:01.000Z", "type": kind, "content": content}


CALL = {"id": "c1", "name": "run_shell_command", "args": {"command": "pytest -q"}}
RESPONSE = {"id": "c1", "name": "run_shell_command", "response": {"output": "3 passed"}}
RESULT = [{"functionResponse": RESPONSE}]


def test_gemini_patch_lines_and_a_rewritten_message_add_only_what_is_new(tmp_path: Path) -> None:
    records = [
        {"$set": {"messages": [_msg("ctx", "user", [{"text": "<session_context>x"}])]}},
        _msg("u1", "user", [{"text": "run the tests"}]),
        {"$set": {"lastUpdated": "2026-03-01T10:00:02.000Z"}},
        _msg("g1", "gemini", "Running them.")
        | {"thoughts": [{"subject": "Plan", "description": "run pytest"}]},
        _msg("g1", "gemini", "Running them.") | {"toolCalls": [CALL]},
        _msg("g1", "gemini", "Running them.") | {"toolCalls": [CALL | {"result": RESULT}]},
        _msg("u2", "user", RESULT),  # the response again, as the next request's content
        _msg("i1", "info", "Request cancelled."),
        {"$rewindTo": "u1"},
        {
            "$set": {
                "messages": [
                    _msg("u1", "user", "run the tests"),
                    _msg("s1", "user", "summary of the work"),
                ]
            }
        },
    ]
    turns = source_for("gemini").read(_gemini(tmp_path, records)).turns

    assert _blocks(turns) == [
        ("u1", "user", 0, "text", None, "run the tests"),
        ("g1", "assistant", 1, "thinking", None, "Plan\nrun pytest"),
        ("g1", "assistant", 1, "text", None, "Running them."),
        ("g1", "assistant", 1, "tool_use", "run_shell_command", "pytest -q"),
        ("g1", "assistant", 1, "tool_result", "run_shell_command", "3 passed"),
        ("s1", "user", 2, "text", None, "summary of the work"),
    ]


def test_gemini_tool_call_without_result_is_kept_as_a_call(tmp_path: Path) -> None:
    cancelled = CALL | {"status": "cancelled"}
    path = _gemini(tmp_path, [_msg("g1", "gemini") | {"toolCalls": [cancelled]}])

    (turn,) = source_for("gemini").read(path).turns

    assert [(b.block_type, b.text) for b in turn.blocks] == [("tool_use", "pytest -q")]


def test_gemini_tool_response_only_in_the_next_message_is_a_tool_turn(tmp_path: Path) -> None:
    records = [
        _msg(
            "g1",
            "gemini",
            "",
        )
        | {"toolCalls": [CALL]},
        _msg("u2", "user", RESULT),
    ]

    turns = source_for("gemini").read(_gemini(tmp_path, records)).turns

    assert [(t.role, b.block_type, b.tool_name, b.text) for t in turns for b in t.blocks] == [
        ("assistant", "tool_use", "run_shell_command", "pytest -q"),
        ("tool", "tool_result", "run_shell_command", "3 passed"),
    ]


def test_gemini_session_cut_short_waits_for_its_last_line(tmp_path: Path) -> None:
    answer = json.dumps(_msg("g1", "gemini", "All green."))
    path = _gemini(tmp_path, [_msg("u1", "user", "status?")], tail=answer[:25])
    source = source_for("gemini")

    first = source.read(path)
    with path.open("a") as handle:
        handle.write(answer[25:] + "\n")
    second = source.read(path, first.resume)

    assert [t.blocks[0].text for t in first.turns] == ["status?"]
    assert [(t.seq, t.blocks[0].text) for t in second.turns] == [(1, "All green.")]


def test_gemini_subagent_session_links_to_its_parent(tmp_path: Path) -> None:
    folder = tmp_path / "chats" / "parent-session"
    folder.mkdir(parents=True)
    path = folder / "sub-1.jsonl"
    header = HEADER | {"sessionId": "sub-1", "kind": "subagent", "directories": ["/w/app"]}
    path.write_text(json.dumps(header) + "\n" + json.dumps(_msg("u1", "user", "look")) + "\n")

    (turn,) = source_for("gemini").read(path).turns

    assert (turn.session_id, turn.parent_uuid, turn.workdir) == (
        "sub-1",
        "parent-session",
        "/w/app",
    )


def test_gemini_session_from_before_jsonl_is_read_whole_when_it_changes(tmp_path: Path) -> None:
    chats = tmp_path / "gemini-home/.gemini/tmp/proj/chats"
    chats.mkdir(parents=True)
    path = chats / "session-2025-09-01T10-00-gem1.json"
    messages = [_msg("u1", "user", [{"text": "why?"}]), _msg("g1", "gemini", "Because.")]
    path.write_text(json.dumps(HEADER | {"messages": messages}, indent=2))
    source = source_for("gemini")

    first = source.read(path)
    unchanged = source.read(path, first.resume)
    path.write_text(json.dumps(HEADER | {"messages": [*messages, _msg("u2", "user", "ok")]}))
    grown = source.read(path, unchanged.resume)

    assert classify(path) == "gemini"
    assert [(t.turn_uuid, t.seq) for t in first.turns] == [("u1", 0), ("g1", 1)]
    assert unchanged.turns == []
    assert [(t.turn_uuid, t.seq) for t in grown.turns] == [("u1", 0), ("g1", 1), ("u2", 2)]
    assert list(source.discover(tmp_path / "gemini-home/.gemini/tmp")) == [path]


# --- Qwen Code -------------------------------------------------------------------------------


def test_real_qwen_session_names_the_mcp_tool_behind_the_bridge() -> None:
    result = source_for("qwen").read(QWEN_SESSION)

    assert result.warnings == []
    assert [(t.role, b.block_type, b.tool_name) for t in result.turns for b in t.blocks] == [
        ("user", "text", None),
        ("assistant", "tool_use", "mcp__funes__recall"),
        ("tool", "tool_result", "mcp__funes__recall"),
        ("assistant", "text", None),
    ]
    assert result.turns[1].blocks[0].text == "what is the answer"  # the MCP tool's own argument
    assert "is 42" in result.turns[2].blocks[0].text
    assert {t.workdir for t in result.turns} == {"/home/dev/proj"}
    assert {t.session_id for t in result.turns} == {"9fd2c81f-ebc9-4506-9e9e-2c211e92839d"}


def test_qwen_session_read_as_it_grows_gives_the_same_chunks(tmp_path: Path) -> None:
    lines = QWEN_SESSION.read_text().splitlines(keepends=True)
    whole = source_for("qwen").read(QWEN_SESSION).turns

    assert _chunks(_read_line_by_line("qwen", lines, tmp_path / "s.jsonl")) == _chunks(whole)


def _qwen(kind: str, uuid: str, parts: list[dict[str, Any]] | None, **extra: Any) -> dict[str, Any]:
    record = {"uuid": uuid, "parentUuid": None, "sessionId": "q1", "type": kind, "cwd": "/w"}
    record |= {"timestamp": "2026-03-01T10:00:00.000Z", "provenance": "system"}
    if parts is not None:
        record["message"] = {"role": "user" if kind != "assistant" else "model", "parts": parts}
    return record | extra


def test_qwen_odd_records(tmp_path: Path) -> None:
    compressed = {"compressedHistory": [{"role": "user", "parts": [{"text": "We chose SQLite."}]}]}
    records = [
        _qwen(
            "assistant",
            "a1",
            [
                {"text": "weighing it", "thought": True},
                {
                    "functionCall": {
                        "id": "k1",
                        "name": "run_shell_command",
                        "args": {"command": "ls"},
                    }
                },
            ],
        ),
        _qwen("system", "s1", None, subtype="ui_telemetry", systemPayload={"x": 1}),
        _qwen("system", "s2", None, subtype="chat_compression", systemPayload=compressed),
        _qwen("user", "u1", [{"text": "nightly check"}], subtype="cron"),
    ]
    path = tmp_path / "q1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"uuid": "cut')

    turns = source_for("qwen").read(path).turns

    assert [
        (t.role, b.block_type, b.tool_name, b.text, b.note) for t in turns for b in t.blocks
    ] == [
        ("assistant", "thinking", None, "weighing it", None),
        ("assistant", "tool_use", "run_shell_command", "ls", None),
        ("system", "text", None, "We chose SQLite.", "compaction"),
        ("user", "text", None, "nightly check", "cron"),
    ]


# --- which agent wrote a file ----------------------------------------------------------------


def test_files_are_routed_by_place_and_by_first_record(tmp_path: Path, monkeypatch) -> None:
    gemini = tmp_path / "gemini-home" / ".gemini"
    qwen = tmp_path / "qwen"
    shutil.copytree(FIXTURES / "gemini", gemini)
    shutil.copytree(FIXTURES / "qwen", qwen)
    (gemini / "tmp/proj/logs.jsonl").write_text('{"type": "user", "message": "x"}\n')
    (qwen / "usage_record.jsonl").write_text('{"type": "user", "message": "x"}\n')
    elsewhere = tmp_path / "copies"
    elsewhere.mkdir()
    shutil.copy(GEMINI_SESSION, elsewhere / "g.jsonl")
    shutil.copy(QWEN_SESSION, elsewhere / "q.jsonl")

    assert [p.name for p in source_for("gemini").discover(gemini / "tmp")] == [GEMINI_SESSION.name]
    assert [p.name for p in source_for("qwen").discover(qwen / "projects")] == [QWEN_SESSION.name]
    assert classify(gemini / "tmp/proj/logs.jsonl") is None
    assert classify(qwen / "usage_record.jsonl") is None
    assert classify(elsewhere / "g.jsonl") == "gemini"
    assert classify(elsewhere / "q.jsonl") == "qwen"
    found = find_units(tmp_path, ["gemini", "qwen", "claude_code"])
    assert {k: len(v) for k, v in found.items()} == {"gemini": 2, "qwen": 2, "claude_code": 0}


@pytest.mark.parametrize("harness", ["gemini", "qwen"])
def test_default_roots_follow_the_agents_home_variables(harness: str, tmp_path: Path) -> None:
    (root,) = source_for(harness).default_roots()
    assert root.is_relative_to(tmp_path)

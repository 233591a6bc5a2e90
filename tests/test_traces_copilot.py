"""Copilot CLI's events.jsonl as a trace source: a real run's events, then the odd cases (a tool
call with no result, a session cut short mid-line, reasoning, errors, a compaction, a
sub-agent), read whole or in pieces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from funes.model import Turn
from funes.paths import copilot_home
from funes.traces import all_sources
from funes.traces.copilot import CopilotSource
from funes.traces.detect import classify

# Written by `copilot -p` 1.0.102 through the agent kit (runs/run_copilot.sh: one prompt, the
# stub calls funes-recall once); only the system prompt's text is cut, it is never indexed.
RUN = Path(__file__).parent / "fixtures" / "copilot" / "recall-run.jsonl"
RUN_SESSION = "2702528f-8970-4555-bb61-ecd6ef6159fd"


def blocks(turn: Turn) -> list[tuple[str, str | None, str]]:
    return [(b.block_type, b.tool_name, b.text) for b in turn.blocks]


def event(kind: str, number: int, **data: Any) -> str:
    record = {
        "type": kind,
        "data": data,
        "id": f"ev-{number}",
        "timestamp": f"2026-01-02T03:04:{number:02d}.000Z",
        "parentId": f"ev-{number - 1}" if number else None,
    }
    return json.dumps(record) + "\n"


def start(session: str = "s-1", cwd: str = "/work/api") -> str:
    return event(
        "session.start", 0, sessionId=session, producer="copilot-agent", context={"cwd": cwd}
    )


def session_file(folder: Path, *lines: str) -> Path:
    """Session s-1's events.jsonl under `folder`, as Copilot writes it: its start in /work/api,
    then `lines`."""
    path = folder / "s-1" / "events.jsonl"
    path.parent.mkdir()
    path.write_text(start() + "".join(lines))
    return path


def tool_request(name: str, **arguments: str) -> dict[str, Any]:
    """A tool call `c1` as an assistant message requests it."""
    return {"toolCallId": "c1", "name": name, "arguments": arguments}


def test_a_real_run_becomes_turns_of_one_session() -> None:
    read = CopilotSource().read(RUN)

    assert classify(RUN) == "copilot"  # by its first event, wherever the file lies
    assert [(t.seq, t.role) for t in read.turns] == [
        (0, "user"),
        (1, "assistant"),
        (2, "tool"),
        (3, "assistant"),
    ]
    user, call, result, answer = read.turns
    assert blocks(user) == [
        ("text", None, "What did we decide about the answer? Use the recall tool.")
    ]
    assert blocks(call) == [("tool_use", "funes-recall", "what is the answer")]
    assert blocks(result)[0][:2] == ("tool_result", "funes-recall")
    assert "the answer to 'what is the answer' is 42" in blocks(result)[0][2]
    assert blocks(answer)[0][2].startswith("FINAL: FUNES-MEMORY")
    assert {t.session_id for t in read.turns} == {RUN_SESSION}
    assert {t.workdir for t in read.turns} == {"/tmp/oc-runs/copilot-settings/home/proj"}
    assert user.turn_uuid == "602a435e-ec25-45c8-b6b6-5a76c2b9bda4"
    assert user.ts == "2026-12-01T15:40:56.462Z"
    assert read.warnings == []


def test_reading_in_pieces_gives_the_same_turns(tmp_path: Path) -> None:
    lines = RUN.read_text().splitlines(keepends=True)
    path = tmp_path / RUN_SESSION / "events.jsonl"
    path.parent.mkdir()
    path.write_text("".join(lines[:11]) + lines[11][:40])  # Copilot mid-write

    first = CopilotSource().read(path)
    path.write_text("".join(lines))
    second = CopilotSource().read(path, first.resume)

    whole = CopilotSource().read(RUN).turns
    pieces = first.turns + second.turns
    assert [(t.turn_uuid, t.seq, blocks(t)) for t in pieces] == [
        (t.turn_uuid, t.seq, blocks(t)) for t in whole
    ]
    assert first.turns and second.turns


def test_a_session_cut_short_keeps_the_call_that_never_got_a_result(tmp_path: Path) -> None:
    request = tool_request("bash", command="make deploy")
    path = session_file(
        tmp_path,
        event("user.message", 1, content="deploy it", transformedContent="<date/> deploy it"),
        event("assistant.message", 2, messageId="m1", content="Deploying.", toolRequests=[request]),
        '{"type":"tool.execution_complete","data":{"toolCallId":"c1","succ',  # killed here
    )

    read = CopilotSource().read(path)

    assert [blocks(t) for t in read.turns] == [
        [("text", None, "deploy it")],
        [("text", None, "Deploying."), ("tool_use", "bash", "make deploy")],
    ]
    assert {t.workdir for t in read.turns} == {"/work/api"}
    assert "incomplete last line" in read.warnings[0]


def test_reasoning_errors_compaction_and_subagents(tmp_path: Path) -> None:
    path = session_file(
        tmp_path,
        event("assistant.reasoning", 1, reasoningId="r1", content="look at the config first"),
        event(
            "assistant.message",
            2,
            messageId="m1",
            content="",
            reasoningText="look at the config first",  # the reasoning event's, repeated
            toolRequests=[tool_request("view", path="/nope")],
        ),
        event(
            "tool.execution_complete",
            3,
            toolCallId="c1",
            success=False,
            error={"message": "Path does not exist"},
        ),
        event(
            "assistant.message",
            4,
            messageId="m2",
            content="audit done",
            reasoningText="hmm",
            parentToolCallId="task-1",
        ),
        event("session.compaction_complete", 5, success=True, summaryContent="We fixed auth."),
        event("hook.start", 6, hookType="agentStop"),
    )

    turns = CopilotSource().read(path).turns

    assert [blocks(t) for t in turns] == [
        [("thinking", None, "look at the config first")],
        [("tool_use", "view", "/nope")],
        [("tool_result", "view", "[error] Path does not exist")],
        [("thinking", None, "hmm"), ("text", None, "audit done")],
        [("text", None, "We fixed auth.")],
    ]
    assert turns[3].blocks[1].note == "subagent"
    assert (turns[4].role, turns[4].blocks[0].note) == ("system", "compaction")


def test_sessions_are_found_where_copilot_keeps_them() -> None:
    folder = copilot_home() / "session-state" / RUN_SESSION
    folder.mkdir(parents=True)
    shutil.copy(RUN, folder / "events.jsonl")
    (folder / "workspace.yaml").write_text("id: x\n")

    found = [
        path
        for source in all_sources()
        if source.harness == "copilot"
        for root in source.default_roots()
        for path in source.discover(root)
    ]

    assert found == [folder / "events.jsonl"]
    assert [s.harness for s in all_sources() if s.owns(folder / "events.jsonl")] == ["copilot"]

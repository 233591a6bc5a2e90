"""opencode's SQLite database as a trace source: a real run's rows, then the odd cases (a message
still streaming, a tool call with no result, a session cut short, a sub-agent, opencode writing
while funes reads)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from funes.model import Turn
from funes.paths import opencode_db
from funes.traces import all_sources
from funes.traces.detect import classify
from funes.traces.opencode import OpencodeSource

FIXTURES = Path(__file__).parent / "fixtures" / "opencode"
RUN_SESSION = "ses_dcdc1a188ffeITI3K7F2lD2HaH"
STORED = "dcdc1a188ffeITI3K7F2lD2HaH"  # without `ses_`: every recent session shares `ses_dcdc`
# Long ago: nothing of such a message changes any more.
OLD_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def make_db(path: Path) -> sqlite3.Connection:
    """opencode's own schema and the rows of a real `opencode run` (see the fixture's head), in
    WAL mode as opencode keeps it; the connection is the "opencode" writing to it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript((FIXTURES / "recall-run.sql").read_text())
    return conn


def add_session(
    conn: sqlite3.Connection, session: str, directory: str, parent: str | None = None
) -> None:
    conn.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
        "time_created, time_updated) VALUES (?, 'global', ?, 's', ?, 't', '1.18.33', ?, ?)",
        (session, parent, directory, OLD_MS, OLD_MS),
    )


def add_message(
    conn: sqlite3.Connection,
    session: str,
    message: str,
    created: int,
    data: dict[str, Any],
    parts: list[dict[str, Any]],
) -> None:
    """A message and its parts, the way opencode stores them."""
    conn.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) "
        "VALUES (?, ?, ?, ?, ?)",
        (message, session, created, created, json.dumps({"time": {"created": created}} | data)),
    )
    for index, part in enumerate(parts):
        conn.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_{message}_{index}", message, session, created, created, json.dumps(part)),
        )


def text(words: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": words, **extra}


def tool(name: str, status: str, **state: Any) -> dict[str, Any]:
    return {
        "type": "tool",
        "tool": name,
        "callID": f"call_{name}",
        "state": {"status": status} | state,
    }


def finished(created: int) -> dict[str, Any]:
    return {"role": "assistant", "time": {"created": created, "completed": created + 5}}


def blocks(turn: Turn) -> list[tuple[str, str | None, str]]:
    return [(b.block_type, b.tool_name, b.text) for b in turn.blocks]


def test_a_real_run_becomes_turns_of_one_session(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    make_db(path).close()

    read = OpencodeSource().read(path)

    assert classify(path) == "opencode"
    assert [(t.seq, t.role, t.session_id) for t in read.turns] == [
        (0, "user", STORED),
        (1, "assistant", STORED),
        (2, "assistant", STORED),
    ]
    user, call, answer = read.turns
    assert blocks(user) == [
        ("text", None, '"What did we decide about the answer? Use the recall tool."')
    ]
    assert blocks(call) == [
        ("tool_use", "funes_recall", "what is the answer"),
        ("tool_result", "funes_recall", "FUNES-MEMORY: the answer to 'what is the answer' is 42"),
    ]
    assert blocks(answer)[0][2].startswith("FINAL: FUNES-MEMORY")
    assert call.turn_uuid == "msg_2323e75ed001npX55FTfeVt2Ki"
    assert user.ts == "2026-12-01T15:34:38.443Z"
    assert {t.workdir for t in read.turns} == {"/tmp/oc-runs/opencode-e2e/home/proj"}
    assert read.complete and read.warnings == []
    assert OpencodeSource().read(path, read.resume).turns == []


def test_new_messages_are_read_incrementally_while_opencode_writes(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    writer = make_db(path)
    first = OpencodeSource().read(path)
    now = int(time.time() * 1000)
    add_message(writer, RUN_SESSION, "msg_9a", now, {"role": "user"}, [text("and the port?")])
    add_message(writer, RUN_SESSION, "msg_9b", now + 1, finished(now + 1), [text("7431")])
    # opencode mid-write: an open transaction is invisible to the reader and does not block it.
    writer.execute("BEGIN IMMEDIATE")
    add_message(writer, RUN_SESSION, "msg_9c", now + 2, {"role": "user"}, [text("not yet")])

    second = OpencodeSource().read(path, first.resume)

    assert [(t.turn_uuid, t.seq, blocks(t)[0][2]) for t in second.turns] == [
        ("msg_9a", 3, "and the port?"),
        ("msg_9b", 4, "7431"),
    ]
    writer.execute("COMMIT")
    add_message(writer, RUN_SESSION, "msg_9d", now + 3, finished(now + 3), [text("done")])
    third = OpencodeSource().read(path, second.resume)
    assert [(t.turn_uuid, t.seq) for t in third.turns] == [("msg_9c", 5), ("msg_9d", 6)]
    writer.close()


def test_a_message_still_streaming_is_read_once_it_is_finished(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    writer = make_db(path)
    now = int(time.time() * 1000)
    add_message(writer, RUN_SESSION, "msg_9a", now, {"role": "user"}, [text("build it")])
    streaming = {"role": "assistant", "time": {"created": now + 1}}
    add_message(writer, RUN_SESSION, "msg_9b", now + 1, streaming, [tool("bash", "running")])

    first = OpencodeSource().read(path)

    assert [t.turn_uuid for t in first.turns][-1] == "msg_9a"
    assert not first.complete  # so the next index reads the database again
    output = {"input": {"command": "make"}, "output": "built 3 targets"}
    writer.execute(
        "UPDATE part SET data = ? WHERE message_id = 'msg_9b'",
        (json.dumps(tool("bash", "completed", **output)),),
    )
    writer.execute(
        "UPDATE message SET data = ? WHERE id = 'msg_9b'", (json.dumps(finished(now + 1)),)
    )
    second = OpencodeSource().read(path, first.resume)
    assert [blocks(t) for t in second.turns] == [
        [("tool_use", "bash", "make"), ("tool_result", "bash", "built 3 targets")]
    ]
    assert second.complete
    writer.close()


def test_a_session_cut_short_keeps_the_call_that_never_got_a_result(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    writer = make_db(path)
    add_session(writer, "ses_cut", "/work/api")
    add_message(writer, "ses_cut", "msg_1", OLD_MS, {"role": "user"}, [text("migrate the db")])
    cut = {"role": "assistant", "time": {"created": OLD_MS + 1}}  # never completed
    pending = tool("bash", "pending", input={"command": "alembic upgrade head"})
    add_message(writer, "ses_cut", "msg_2", OLD_MS + 1, cut, [text("Running it."), pending])
    add_message(writer, "ses_cut", "msg_3", OLD_MS + 2, {"role": "user"}, [text("hello?")])

    turns = [t for t in OpencodeSource().read(path).turns if t.session_id == "cut"]

    assert [blocks(t) for t in turns] == [
        [("text", None, "migrate the db")],
        [("text", None, "Running it."), ("tool_use", "bash", "alembic upgrade head")],
        [("text", None, "hello?")],  # the last prompt, never answered
    ]
    assert {t.workdir for t in turns} == {"/work/api"}
    writer.close()


def test_subagents_errors_summaries_and_opencode_own_text(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    writer = make_db(path)
    add_session(writer, "ses_parent", "/work/app")
    add_session(writer, "ses_child", "/work/app", parent="ses_parent")
    add_message(
        writer,
        "ses_parent",
        "msg_1",
        OLD_MS,
        {"role": "user"},
        [
            text("review auth"),
            text("<file contents>", synthetic=True),
            {"type": "file", "filename": "auth.py", "mime": "text/plain"},
        ],
    )
    failed = tool("read", "error", input={"filePath": "/nope"}, error="ENOENT /nope")
    reasoning = {"type": "reasoning", "text": "check the token expiry first"}
    task = {"type": "subtask", "prompt": "audit the token code", "agent": "general"}
    add_message(
        writer, "ses_parent", "msg_2", OLD_MS + 1, finished(OLD_MS + 1), [reasoning, failed, task]
    )
    summary = finished(OLD_MS + 2) | {"summary": True}
    add_message(writer, "ses_parent", "msg_3", OLD_MS + 2, summary, [text("We reviewed auth.")])
    add_message(writer, "ses_child", "msg_4", OLD_MS + 3, {"role": "user"}, [text("audit")])

    turns = {t.turn_uuid: t for t in OpencodeSource().read(path).turns}

    assert blocks(turns["msg_1"]) == [
        ("text", None, "review auth"),
        ("text", None, "[file auth.py]"),
    ]
    assert blocks(turns["msg_2"]) == [
        ("thinking", None, "check the token expiry first"),
        ("tool_use", "read", "/nope"),
        ("tool_result", "read", "[error] ENOENT /nope"),
        ("text", None, "audit the token code"),
    ]
    assert turns["msg_2"].blocks[-1].note == "subagent"
    assert turns["msg_3"].blocks[0].note == "compaction"
    assert turns["msg_1"].parent_uuid is None
    assert (turns["msg_4"].session_id, turns["msg_4"].parent_uuid) == ("child", "parent")
    writer.close()


def test_the_database_is_found_where_opencode_keeps_it(tmp_path: Path) -> None:
    make_db(opencode_db()).close()
    (opencode_db().parent / "other.db").write_bytes(b"not sqlite")

    found = {
        source.harness: [p for root in source.default_roots() for p in source.discover(root)]
        for source in all_sources()
        if source.harness == "opencode"
    }

    assert found == {"opencode": [opencode_db()]}
    assert opencode_db() == tmp_path / "xdg-data" / "opencode" / "opencode.db"

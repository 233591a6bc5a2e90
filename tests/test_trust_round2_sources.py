"""Trust, round two (issue 31), the sources: one wrongly-typed value, one bad row, costs only
itself. The run goes on, the rest of the transcript and every other transcript is stored, the
bad place is named `file:line` (or `db:table:rowid`), and `funes doctor` lists it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fuzz_fixtures import dumps, materialise, place_all
from recall_fixtures import turn
from trust_fixtures import claude_transcript, funes, stored_texts

from funes.index.chunking import chunk_turn
from funes.index.indexer import IndexReport, index
from funes.index.state import IndexState
from funes.index.store import ChunkStore
from funes.model import Chunk


def rewrite_line(path: Path, number: int, change: Any) -> None:
    lines = path.read_text().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_a_wrongly_typed_value_costs_its_own_line_and_doctor_names_it() -> None:
    claude_transcript("good-session", ["where is the redis cache configured", "in app.py"])
    bad = claude_transcript(
        "bad-session",
        ["the migration plan for shard seven", "done", "a prompt whose content is 5", "and after"],
    )
    rewrite_line(bad, 3, lambda r: r["message"].__setitem__("content", 5))
    typed = claude_transcript("typed-session", ["the parent is a number here", "noted"])
    rewrite_line(typed, 2, lambda r: r.__setitem__("parentUuid", 5))

    report = index(everything=True)

    assert any(w.startswith(f"{bad}:3: cannot be read (TypeError") for w in report.warnings)
    texts = " ".join(stored_texts())
    for words in ("redis cache", "shard seven", "and after", "parent is a number", "noted"):
        assert words in texts, words
    rows = ChunkStore.open().scan(["text", "parent_uuid"]).to_pylist()
    assert {r["parent_uuid"] for r in rows if r["text"] == "noted"} == {"5"}
    assert any(f"{bad}:3" in w for w in IndexState.load().skipped[str(bad)])

    # `funes doctor` does not say every check passes: it names the line left out.
    doctor = funes("doctor", "--json")
    found = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}["unreadable transcripts"]
    assert found["status"] == "warn" and f"{bad}:3" in found["detail"]
    assert "the rest of each is indexed" in found["detail"]


# Where the issue found each agent's reader crash on one wrong value; each is now one skipped
# (or coerced) record, and the rest of the transcript is stored.
CRASHES: dict[str, tuple[str, str]] = {
    "claude_code": ('"type":"user"', "content=5"),
    "codex": ('"type":"function_call"', "call_id=list"),
    "pi": ('"role":"toolResult"', "toolCallId=list"),
    "copilot": ('"type":"session.start"', "context=5"),
    "gemini": ('"toolCalls"', "toolCalls=5"),
    "qwen": ('"functionCall"', "id=list"),
}


def _set_deep(record: Any, key: str, value: Any) -> bool:
    """Set `key` to `value` in the first object under `record` that has it."""
    if isinstance(record, dict):
        if key in record:
            record[key] = value
            return True
        return any(_set_deep(v, key, value) for v in record.values())
    if isinstance(record, list):
        return any(_set_deep(v, key, value) for v in record)
    return False


@pytest.mark.parametrize("harness", sorted(CRASHES))
def test_a_wrong_type_where_each_reader_crashed_costs_at_most_its_record(
    tmp_path: Path, harness: str
) -> None:
    units = place_all(tmp_path / "transcripts")
    unit = units[harness]
    marker, change = CRASHES[harness]
    key, _, kind = change.partition("=")
    value: Any = [1, "x"] if kind == "list" else 5
    lines = unit.read_text().splitlines()
    number = next(
        i for i, line in enumerate(lines) if marker.replace(" ", "") in line.replace(" ", "")
    )
    record = json.loads(lines[number])
    assert _set_deep(record, key, value), (harness, key)
    lines[number] = json.dumps(record)
    unit.write_text("\n".join(lines) + "\n")

    report = index(paths=[tmp_path / "transcripts"])

    assert report.units_read == len(units)
    stored = ChunkStore.open().scan(["harness", "session_id"]).to_pylist()
    assert {r["harness"] for r in stored} == set(units)  # every agent's session is there


def test_a_batch_write_names_the_row_it_cannot_store_and_stores_the_others() -> None:
    from funes.index.embed import load_embedder

    embedder = load_embedder(None)
    store = ChunkStore.create_or_open(None, embedder)

    def chunk(i: int, parent: Any) -> Chunk:
        (piece,) = chunk_turn(turn("s", f"t{i}", i, f"row {i}", ts="", workdir=""))
        return replace(piece, parent_uuid=parent)

    chunks = [chunk(0, None), chunk(1, 5), chunk(2, "t1")]  # `"parentUuid": 5` as it was
    refused = store.add_storable(chunks, np.asarray(embedder.encode([c.text for c in chunks])))

    assert len(refused) == 1 and "/transcripts/s.jsonl: session 's' turn 't1'" in refused[0]
    assert sorted(store.scan(["id"]).column("id").to_pylist()) == sorted(
        [chunks[0].id, chunks[2].id]
    )


def index_with_one_row_nested_too_deep(
    tmp_path: Path,
    agent: str,
    table: str,
    column: str,
    pick: str,
    also: Callable[[sqlite3.Connection, Any], None] | None = None,
) -> tuple[Path, Any, IndexReport]:
    """Every agent's transcripts, indexed with the row of `agent`'s database that the query
    `pick` picks holding a `column` nested deeper than a parser follows (and `also` done to the
    database): that row is named `db:table:rowid` in the warnings and kept in the index state
    as skipped. The database, the row's id and the run's report."""
    units = place_all(tmp_path / "transcripts")
    database = units[agent]
    with sqlite3.connect(database) as conn:
        row = conn.execute(pick).fetchone()[0]
        deep = dumps(materialise("deep:3000"))
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", (deep, row))
        if also is not None:
            also(conn, row)
    conn.close()

    report = index(paths=[tmp_path / "transcripts"])

    named = f"{database}:{table}:{row}"
    assert any(w.startswith(f"{named}: cannot be read") for w in report.warnings)
    assert any(named in w for w in IndexState.load().skipped[str(database)])
    return database, row, report


def test_one_deeply_nested_opencode_part_is_named_and_the_rest_of_the_database_indexed(
    tmp_path: Path,
) -> None:
    def another_part_with_a_wrong_state(conn: sqlite3.Connection, part: Any) -> None:
        other = conn.execute(
            "SELECT id FROM part WHERE id != ? AND data LIKE '%\"state\"%' LIMIT 1", (part,)
        ).fetchone()
        if other:
            data = json.loads(
                conn.execute("SELECT data FROM part WHERE id = ?", other).fetchone()[0]
            )
            data["state"] = 5
            conn.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(data), other[0]))

    database, _, report = index_with_one_row_nested_too_deep(
        tmp_path,
        "opencode",
        "part",
        "data",
        "SELECT id FROM part ORDER BY id LIMIT 1",
        another_part_with_a_wrong_state,
    )

    stored = ChunkStore.open().scan(["harness", "session_id"]).to_pylist()
    assert sum(r["harness"] == "opencode" for r in stored) >= 1, report.warnings
    assert not any(
        "cannot be read (" in w and w.startswith(f"{database}: ") for w in report.warnings
    )


def test_one_deeply_nested_hermes_row_is_named_and_the_rest_of_the_database_indexed(
    tmp_path: Path,
) -> None:
    database, row, _ = index_with_one_row_nested_too_deep(
        tmp_path,
        "hermes",
        "messages",
        "tool_calls",
        "SELECT id FROM messages WHERE role = 'assistant' LIMIT 1",
    )

    with sqlite3.connect(database) as conn:
        total = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    conn.close()
    stored = ChunkStore.open().scan(["harness", "turn_uuid"]).to_pylist()
    hermes_turns = {r["turn_uuid"] for r in stored if r["harness"] == "hermes"}
    assert str(row) not in hermes_turns and len(hermes_turns) >= total - 2


def test_a_locked_opencode_database_is_said_to_be_busy_and_read_once_it_is_free(
    tmp_path: Path,
) -> None:
    """Another program's exclusive transaction: its file is half-written, so reading it as it
    is (`immutable=1`) is wrong; the run says the database is busy, not damaged, and the next
    run reads it."""
    from test_recall_all_agents import AGENT_TRANSCRIPTS, place

    database = place(AGENT_TRANSCRIPTS["opencode"], tmp_path / "opencode")
    database = database.rename(database.with_name("opencode.db"))
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("CREATE TABLE scratch(x)")
    writer.execute("INSERT INTO scratch VALUES (randomblob(100000))")

    report = index(paths=[database])

    assert [w for w in report.warnings if "locked by another program" in w], report.warnings
    assert not [w for w in report.warnings if "malformed" in w or "skipped" in w]
    assert report.chunks_added == 0  # nothing read from a file another program is writing
    assert str(database) not in IndexState.load().skipped

    writer.execute("ROLLBACK")
    writer.close()
    again = index(paths=[database])
    assert again.warnings == [] and again.chunks_added > 0


def test_a_bad_parquet_row_costs_only_itself(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from funes.traces.parquet import ParquetSource

    deep = dumps(materialise("deep:3000"))
    rows = [
        ("first", [json.dumps({"role": "user", "content": "the first session speaks"})]),
        ("second", [deep, json.dumps({"role": "user", "content": 5, "tool_calls": 5})]),
        ("third", [json.dumps({"role": "user", "content": "the third session after it"})]),
    ]
    path = tmp_path / "export.parquet"
    table = pa.table(
        {"session_id": [r[0] for r in rows], "messages": [r[1] for r in rows]},
        schema=pa.schema([("session_id", pa.string()), ("messages", pa.list_(pa.string()))]),
    )
    pq.write_table(table, path)

    result = ParquetSource().read(path, None)

    assert result.complete
    assert {t.session_id for t in result.turns} == {"first", "second", "third"}
    assert any(w.startswith(f"{path}:2: message 0 is not JSON") for w in result.warnings)


def test_a_database_that_cannot_be_read_is_listed_by_doctor_until_it_reads_again(
    tmp_path: Path,
) -> None:
    units = place_all(tmp_path / "transcripts")
    database = units["hermes"]
    good = database.read_bytes()
    assert index(paths=[database]).warnings == []
    with sqlite3.connect(database) as conn:  # a new row, so the next run reads the database
        conn.execute(
            "INSERT INTO messages (session_id, role, content, timestamp) "
            "SELECT session_id, 'user', 'one more prompt', timestamp FROM messages LIMIT 1"
        )
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'messages'")
        [(page,)] = root.fetchall()
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    grown = database.read_bytes()
    start = (page - 1) * size  # the messages table's first page, overwritten with junk
    database.write_bytes(grown[:start] + b"\xff" * size + grown[start + size :])

    report = index(paths=[database])
    assert any(w.startswith(f"{database}: cannot read the database") for w in report.warnings)
    assert str(database) in IndexState.load().skipped

    database.write_bytes(grown)
    again = index(paths=[database])
    assert again.warnings == [] and again.chunks_added > 0
    assert str(database) not in IndexState.load().skipped
    assert good != grown


def test_many_bad_lines_of_one_kind_are_counted_for_doctor_not_called_a_lost_file() -> None:
    from funes.inspect.checks_local import _skipped_check

    bad = claude_transcript("many-bad", [f"prompt number {i}" for i in range(12)])
    for number in range(1, 12, 2):  # six user lines whose content is a number
        rewrite_line(bad, number, lambda r: r["message"].__setitem__("content", 5))

    index(everything=True)

    kept = IndexState.load().skipped[str(bad)]
    assert any(w.endswith("(3 more line(s) like this)") for w in kept), kept
    check = _skipped_check(IndexState.load().skipped)
    assert "1 transcript(s) hold lines or rows" in check.detail
    assert "could not be read at all" not in check.detail

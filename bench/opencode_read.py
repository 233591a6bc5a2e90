"""How fast funes reads opencode's database: a whole history, then one new turn.

Builds a database with opencode's own schema (the tables of tests/fixtures/opencode) holding
SESSIONS sessions of MESSAGES messages (3 text parts each), reads it whole with the opencode
trace source, then adds one prompt and its answer and reads again from the resume token, the way
the hook worker does after each turn, while another connection holds a write transaction open
(opencode mid-write). Prints turns, seconds and the resume token's size.

Usage: .venv/bin/python bench/opencode_read.py [--sessions 200] [--messages 100]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path

from funes.traces.opencode import OpencodeSource

SCHEMA = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "opencode" / "recall-run.sql"
OLD_MS = 1_767_225_600_000


def _message(conn: sqlite3.Connection, session: str, message: str, created: int, role: str) -> None:
    data = {"role": role, "time": {"created": created}}
    if role == "assistant":
        data["time"]["completed"] = created + 5
    conn.execute(
        "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
        (message, session, created, created, json.dumps(data)),
    )
    for index in range(3):
        text = {"type": "text", "text": f"{role} {message} part {index} " * 20}
        conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_{message}_{index}", message, session, created, created, json.dumps(text)),
        )


def build(path: Path, sessions: int, messages: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA.read_text())
    for s in range(sessions):
        session = f"ses_{s:08d}"
        conn.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, "
            "time_updated) VALUES (?, 'global', 's', '/work', 't', '1', ?, ?)",
            (session, OLD_MS, OLD_MS),
        )
        for m in range(messages):
            created = OLD_MS + s * 10_000_000 + m * 1000
            _message(
                conn, session, f"msg_{s:08d}_{m:05d}", created, "user" if m % 2 else "assistant"
            )
    conn.commit()
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--messages", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "opencode.db"
        build(path, args.sessions, args.messages)
        source = OpencodeSource()
        started = time.perf_counter()
        whole = source.read(path)
        whole_s = time.perf_counter() - started

        writer = sqlite3.connect(path, isolation_level=None)
        now = int(time.time() * 1000)
        _message(writer, "ses_00000001", "msg_new_1", now, "user")
        _message(writer, "ses_00000001", "msg_new_2", now + 1, "assistant")
        writer.execute("BEGIN IMMEDIATE")  # opencode in the middle of its next write
        _message(writer, "ses_00000001", "msg_new_3", now + 2, "user")
        started = time.perf_counter()
        turn = source.read(path, whole.resume)
        turn_s = time.perf_counter() - started
        writer.execute("ROLLBACK")
        writer.close()
    rows = args.sessions * args.messages
    print(
        f"whole history: {rows} messages, {rows * 3} parts: {len(whole.turns)} turns "
        f"in {whole_s:.2f} s ({len(whole.turns) / whole_s:,.0f} turns/s)"
    )
    print(
        f"one new turn: {len(turn.turns)} turns in {turn_s * 1000:.1f} ms "
        f"(resume token {len(json.dumps(whole.resume)):,} bytes)"
    )


if __name__ == "__main__":
    main()

"""`funes hook <agent>`: what every agent runs after a turn must never block or break it, must
stay light, and must get every turn into the memory exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from funes.integrations import agents
from funes.integrations.hook import parse_payload, queue_dir, spool_entry

FUNES = str(Path(sys.executable).with_name("funes"))
HEAVY = ("lancedb", "numpy", "torch", "pyarrow", "sentence_transformers", "model2vec")


def _spool() -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(queue_dir().glob("*.json"))]


def _run_hook(agent: str, payload: str, *argv: str, env: dict[str, str] | None = None) -> int:
    # HOME points nowhere real so a spawned worker's catch-up finds no transcripts.
    result = subprocess.run(
        [FUNES, "hook", agent, *argv],
        input=payload,
        text=True,
        capture_output=True,
        timeout=30,
        env=env or {**os.environ, "HOME": os.environ["FUNES_HOME"]},
    )
    assert result.stdout == "" and result.stderr == ""
    return result.returncode


@pytest.fixture
def worker_busy(tmp_funes_home: Path):  # type: ignore[no-untyped-def]
    """Stand in for a worker already draining the queue: hooks then only write their entry."""
    import fcntl

    queue_dir().mkdir(parents=True, exist_ok=True)
    with open(queue_dir() / ".worker.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
        fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.mark.usefixtures("worker_busy")
def test_claude_stop_payload_is_spooled_with_its_transcript() -> None:
    payload = {
        "session_id": "s-1",
        "transcript_path": "/x/s-1.jsonl",
        "cwd": "/proj",
        "hook_event_name": "Stop",
        "last_assistant_message": "done",
    }
    assert _run_hook("claude", json.dumps(payload)) == 0
    [entry] = _spool()
    assert entry["transcript_path"] == "/x/s-1.jsonl"
    assert entry["agent"] == "claude" and entry["event"] == "Stop"
    assert agents.hook_last_fired("claude") is not None


def test_codex_notify_payload_comes_as_the_last_argument() -> None:
    notify = {"type": "agent-turn-complete", "thread-id": "019c-abc", "cwd": "/p"}
    payload = parse_payload("", [json.dumps(notify)])
    entry = spool_entry("codex", payload)
    assert entry["session_id"] == "019c-abc"
    assert entry["event"] == "agent-turn-complete"
    assert entry["transcript_path"] is None


def test_session_end_asks_for_a_catch_up() -> None:
    stop = spool_entry("claude", {"hook_event_name": "Stop", "transcript_path": "/t"})
    end = spool_entry("claude", {"hook_event_name": "SessionEnd", "transcript_path": "/t"})
    assert not stop["catch_up"] and end["catch_up"]


@pytest.mark.usefixtures("worker_busy")
def test_hook_returns_while_stdin_is_left_open(tmp_funes_home: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_funes_home)}
    proc = subprocess.Popen([FUNES, "hook", "claude"], stdin=subprocess.PIPE, env=env)
    assert proc.stdin is not None
    proc.stdin.write(b'{"session_id": "open-stdin", "transcript_path": "/x.jsonl"')  # no "}"
    proc.stdin.flush()
    try:
        assert proc.wait(timeout=10) == 0  # gave up on stdin that never ends; did not hang
    finally:
        proc.stdin.close()
    [entry] = _spool()  # queued all the same, for a catch-up of the agent's transcripts
    assert entry["agent"] == "claude" and entry["transcript_path"] is None


def test_hook_exits_zero_when_it_cannot_write_anything(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where FUNES_HOME should be")
    env = {**os.environ, "FUNES_HOME": str(blocker / "home"), "HOME": str(tmp_path)}
    assert _run_hook("claude", '{"transcript_path": "/x"}', env=env) == 0


@pytest.mark.usefixtures("worker_busy")
def test_hook_path_imports_nothing_heavy(tmp_funes_home: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_funes_home)}
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "funes.cli", "hook", "claude"],
        input='{"transcript_path": "/x.jsonl"}',
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert result.returncode == 0
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "funes.integrations.hook" in imported
    assert not {m for m in imported if m.split(".")[0] in HEAVY}


def test_notify_chains_to_the_users_own_program(tmp_path: Path) -> None:
    record = tmp_path / "theirs.json"
    theirs = tmp_path / "their_notify.py"
    # Written whole, then renamed into place: the test must not read a half-written record.
    theirs.write_text(
        "import json, os, sys\n"
        f"open({str(record)!r} + '.tmp', 'w').write(json.dumps(sys.argv[1:]))\n"
        f"os.replace({str(record)!r} + '.tmp', {str(record)!r})\n"
    )
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": "t-9"})
    argv = ["--chain", sys.executable, str(theirs), "--their-flag", payload]
    assert _run_hook("codex", "", *argv) == 0
    deadline = time.monotonic() + 20
    while not record.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert json.loads(record.read_text()) == ["--their-flag", payload]


@pytest.mark.slow
def test_concurrent_hooks_index_every_turn_once(tmp_path: Path, tmp_funes_home: Path) -> None:
    """Ten hooks fire at once while the transcript keeps growing: every turn ends up in the
    memory, no chunk twice, and the queue drains."""
    from agent_harness import wait_for_hook_worker, write_claude_transcript

    env = {**os.environ, "HOME": str(tmp_path / "home")}
    cwd = tmp_path / "proj"
    turns = [(f"question {i} about zebrafish-{i}", f"answer {i}: kelp-{i}") for i in range(12)]
    claude_dir = tmp_path / "home" / ".claude"
    transcript = write_claude_transcript(claude_dir, cwd, "c0ffee00-1111", turns[:2])
    full = transcript.read_text().splitlines(keepends=True)
    write_claude_transcript(claude_dir, cwd, "c0ffee00-1111", turns)
    lines = transcript.read_text().splitlines(keepends=True)
    transcript.write_text("".join(full))
    payload = json.dumps(
        {
            "session_id": "c0ffee00-1111",
            "transcript_path": str(transcript),
            "hook_event_name": "Stop",
        }
    )
    procs = []
    for step in range(10):
        with open(transcript, "a") as out:  # the agent keeps writing; last line may be partial
            chunk = lines[len(full) + 2 * step : len(full) + 2 * step + 2]
            text = "".join(chunk)
            out.write(text[: len(text) // 2] if step == 9 else text)
        procs.append(
            subprocess.Popen([FUNES, "hook", "claude"], stdin=subprocess.PIPE, env=env, text=True)
        )
        assert procs[-1].stdin is not None
        procs[-1].stdin.write(payload)
        procs[-1].stdin.close()
    assert all(p.wait(timeout=30) == 0 for p in procs)
    with open(transcript, "w") as out:  # the agent finishes its last line; one more hook fires
        out.write("".join(lines))
    assert _run_hook("claude", payload, env=env) == 0
    wait_for_hook_worker(tmp_funes_home, timeout=240)

    from funes.index.store import ChunkStore

    store = ChunkStore.open()
    rows = store.table.to_arrow().select(["id", "text"]).to_pylist()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    text = "\n".join(r["text"] for r in rows)
    for i in range(12):
        assert f"zebrafish-{i}" in text and f"kelp-{i}" in text
    assert not list(queue_dir().glob("*.json"))
    assert not list((queue_dir() / "failed").glob("*.json"))

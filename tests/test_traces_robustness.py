"""Damaged transcripts: warnings naming file and line, never a crash, never a lost good line."""

from __future__ import annotations

import json
from pathlib import Path

from backports import zstd
from trace_fixtures import CORPUS, read_unit

from funes.traces.claude import ClaudeSource
from funes.traces.codex import CodexSource
from funes.traces.jsonl import MAX_LINE_BYTES
from funes.traces.pi import PiSource


def _claude_line(uuid: str, text: str, role: str = "user") -> bytes:
    record = {
        "type": role,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": "s1",
        "cwd": "/w",
        "timestamp": "2026-01-02T03:04:05.000Z",
        "message": {"role": role, "id": f"msg-{uuid}", "content": text},
    }
    return json.dumps(record).encode() + b"\n"


def _texts(result) -> list[str]:
    return [b.text for t in result.turns for b in t.blocks]


def test_truncated_last_line_waits_for_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    whole = _claude_line("u2", "second")
    path.write_bytes(_claude_line("u1", "first") + whole[:25])
    first = ClaudeSource().read(path)
    assert _texts(first) == ["first"]
    assert first.resume["pos"]["offset"] == len(_claude_line("u1", "first"))
    assert first.warnings == [f"{path}:2: incomplete last line left for the next read"]
    path.write_bytes(_claude_line("u1", "first") + whole)
    second = ClaudeSource().read(path, first.resume)
    assert _texts(second) == ["second"]
    assert second.turns[0].seq == 1


def test_complete_last_line_without_newline_is_read(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_bytes(_claude_line("u1", "first") + _claude_line("u2", "second").rstrip())
    assert _texts(ClaudeSource().read(path)) == ["first", "second"]


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    result = ClaudeSource().read(path)
    assert (result.turns, result.warnings) == ([], [])
    assert ClaudeSource().read(path, result.resume).turns == []


def test_invalid_utf8_is_replaced_and_the_line_kept(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    bad = _claude_line("u2", "cafXX ok").replace(b"XX", b"\xff")
    path.write_bytes(_claude_line("u1", "first") + bad + _claude_line("u3", "third"))
    result = ClaudeSource().read(path)
    assert _texts(result) == ["first", "caf\ufffd ok", "third"]
    assert result.warnings == [f"{path}:2: invalid UTF-8 replaced with U+FFFD"]


def test_binary_file_warns_without_crashing(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_bytes(bytes(range(256)) * 64 + b"\n" + bytes(range(256)))
    result = ClaudeSource().read(path)
    assert result.turns == []
    assert result.warnings and all(w.startswith(f"{path}:") for w in result.warnings)


def test_garbage_line_between_good_lines(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_bytes(_claude_line("u1", "first") + b"{not json\n" + _claude_line("u2", "second"))
    result = ClaudeSource().read(path)
    assert _texts(result) == ["first", "second"]
    assert result.warnings == [f"{path}:2: not valid JSON; skipped"]


def test_a_100_mb_line_is_skipped_by_streaming(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    huge = b'{"type":"user","pad":"' + b"x" * (100 * 1024 * 1024) + b'"}\n'
    assert len(huge) > MAX_LINE_BYTES
    with path.open("wb") as handle:
        handle.write(_claude_line("u1", "before"))
        handle.write(huge)
        handle.write(_claude_line("u2", "after"))
    del huge
    result = ClaudeSource().read(path)
    assert _texts(result) == ["before", "after"]
    assert result.warnings == [f"{path}:2: line longer than 32 MB skipped"]
    assert result.resume["pos"]["offset"] == path.stat().st_size


def test_two_objects_on_one_line_both_kept(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_bytes(_claude_line("u1", "first").rstrip() + _claude_line("u2", "second"))
    result = ClaudeSource().read(path)
    assert _texts(result) == ["first", "second"]
    assert result.warnings == [f"{path}:1: 2 JSON values run together on one line; split"]


def test_rewritten_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_bytes(_claude_line("u1", "first") + _claude_line("u2", "second"))
    first = ClaudeSource().read(path)
    path.write_bytes(_claude_line("u9", "other"))  # shorter: truncated and rewritten
    again = ClaudeSource().read(path, first.resume)
    assert _texts(again) == ["other"]
    assert again.turns[0].seq == 0
    assert "rewritten or truncated" in again.warnings[0]
    # Same length, different head: also a rewrite.
    path.write_bytes(_claude_line("u1", "FIRST") + _claude_line("u2", "SECOND"))
    assert _texts(ClaudeSource().read(path, first.resume)) == ["FIRST", "SECOND"]


def test_zstd_rollout_reads_like_the_plain_file(tmp_path: Path) -> None:
    plain = CORPUS / "funes-fixtures/codex_session.jsonl"
    packed = tmp_path / "rollout-x.jsonl.zst"
    packed.write_bytes(zstd.compress(plain.read_bytes()))
    source = CodexSource()
    from_plain = source.read(plain).turns
    from_packed = source.read(packed)
    assert [(t.turn_uuid, t.blocks) for t in from_packed.turns] == [
        (t.turn_uuid, t.blocks) for t in from_plain
    ]
    assert source.read(packed, from_packed.resume).turns == []


def test_pi_whitespace_only_text_is_dropped() -> None:
    turns = PiSource().read(CORPUS / "funes-fixtures/pi_session.jsonl").turns
    assistant = next(t for t in turns if t.role == "assistant")
    assert [b.block_type for b in assistant.blocks] == ["thinking", "tool_use"]


def test_unchanged_file_yields_nothing_new() -> None:
    path = CORPUS / "funes-fixtures/claude_session.jsonl"
    first = read_unit(path)
    assert len(first.turns) == 3
    assert read_unit(path, first.resume).turns == []

"""Every real transcript in the corpus parses into the turns a reader of the file would expect."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from trace_fixtures import CORPUS, block_kinds, corpus_files, json_lines, latest_by_uuid, read_unit

from funes.model import BLOCK_TYPES, Turn
from funes.traces.detect import classify

FILES = corpus_files()
CLAUDE_REAL = [
    p
    for p in FILES
    if classify(p) == "claude_code" and "jazzyalex" not in p.name and p.suffix == ".jsonl"
]
PI_FILES = [p for p in FILES if classify(p) == "pi"]
# The two lines of the pi-mono corpus known to hold two entries run together.
KNOWN_SPLIT_LINES = {
    "badlogic__pi-mono__compact.jsonl": 1013,
    "badlogic__pi-mono__session.jsonl": 440,
}


def _id(path: Path) -> str:
    return str(path.relative_to(CORPUS))


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_every_corpus_file_parses_into_well_formed_turns(path: Path) -> None:
    result = read_unit(path)
    expected_split = KNOWN_SPLIT_LINES.get(path.name)
    if expected_split:
        assert result.warnings == [
            f"{path}:{expected_split}: 2 JSON values run together on one line; split"
        ]
    else:
        assert result.warnings == []
    by_session: dict[str, list[Turn]] = {}
    for turn in result.turns:
        by_session.setdefault(turn.session_id, []).append(turn)
        assert turn.harness == classify(path)
        assert turn.source_path == str(path)
        assert turn.ts == "" or (turn.ts.endswith("Z") and turn.ts[4] == "-")
        assert turn.blocks, "a turn without blocks must be dropped"
        for block in turn.blocks:
            assert block.block_type in BLOCK_TYPES
            assert block.text.strip()
            if block.block_type == "tool_use":
                assert block.tool_name
    for session, turns in by_session.items():
        assert [t.seq for t in turns] == list(range(len(turns))), session
        assert len({t.turn_uuid for t in turns}) == len(turns), session


def _nonblank(content: Any) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    for item in content or []:
        if isinstance(item, str) and item.strip():
            return True
        if isinstance(item, dict) and (
            item.get("type") in ("image", "tool_reference") or str(item.get("text", "")).strip()
        ):
            return True
    return False


def _claude_expectations(path: Path) -> tuple[Counter[str], int, int, int]:
    """Counted from the records: (sessions → turns, tool_use, tool_result, thinking)."""
    turns: Counter[str] = Counter()
    seen_messages: set[tuple[str, str]] = set()
    tool_uses = tool_results = thinking = 0
    for record in json_lines(path):
        message = record.get("message")
        if record.get("type") not in ("user", "assistant") or not isinstance(message, dict):
            continue
        if record.get("isApiErrorMessage") or message.get("model") == "<synthetic>":
            continue
        session = record["sessionId"]
        if path.stem.startswith("agent-"):
            session = path.stem
        elif record.get("isSidechain"):
            session = "sidechain"  # inline subagents: counted together below
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        parts = [p for p in parts or [] if isinstance(p, dict)]
        if record["type"] == "assistant":
            uses = [p for p in parts if p.get("type") == "tool_use"]
            thoughts = [p for p in parts if p.get("type") == "thinking" and p["thinking"].strip()]
            texts = [p for p in parts if p.get("type") == "text" and p["text"].strip()]
            tool_uses += len(uses)
            thinking += len(thoughts)
            key = (session, message["id"])
            if (uses or thoughts or texts) and key not in seen_messages:
                seen_messages.add(key)
                turns[session] += 1
            continue
        results = [
            p for p in parts if p.get("type") == "tool_result" and _nonblank(p.get("content"))
        ]
        said = [
            p
            for p in parts
            if p.get("type") == "image" or (p.get("type") == "text" and p["text"].strip())
        ]
        tool_results += len(results)
        if results or (said and not record.get("isMeta")):
            turns[session] += 1
    return turns, tool_uses, tool_results, thinking


@pytest.mark.parametrize("path", CLAUDE_REAL, ids=_id)
def test_claude_turns_match_the_records(path: Path) -> None:
    result = read_unit(path)
    expected, tool_uses, tool_results, thinking = _claude_expectations(path)
    got: Counter[str] = Counter()
    for turn in result.turns:
        got[
            "sidechain"
            if turn.session_id.startswith("agent-") and not path.stem.startswith("agent-")
            else turn.session_id
        ] += 1
    assert got == expected
    kinds = block_kinds(result.turns)
    assert (kinds["tool_use"], kinds["tool_result"], kinds["thinking"]) == (
        tool_uses,
        tool_results,
        thinking,
    )


def test_claude_inline_sidechains_become_linked_subagent_sessions() -> None:
    path = (
        CORPUS / "claude/d-kimuson__claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    )
    turns = read_unit(path).turns
    parent = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
    sessions: dict[str, list[Turn]] = {}
    for turn in turns:
        sessions.setdefault(turn.session_id, []).append(turn)
    subagents = [s for s in sessions if s != parent]
    # Five Task calls in the main file, each answered by one inline sidechain.
    assert len(subagents) == 5
    assert all(sessions[s][0].parent_uuid == parent for s in subagents)
    assert sessions[parent][0].blocks[0].text.startswith("/orchestrator create TODO app")


def test_claude_subagent_files_keep_their_id_and_name_their_parent() -> None:
    folder = CORPUS / "claude/daaain__claude-code-log__real_projects/-experiments-worktrees"
    parent = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    sub = read_unit(folder / parent / "subagents/agent-a36efb2a1231c41e2.jsonl").turns
    assert {t.session_id for t in sub} == {"agent-a36efb2a1231c41e2"}
    assert sub[0].parent_uuid == parent
    beside = read_unit(
        CORPUS
        / "claude/daaain__claude-code-log__real_projects/-src-deep-manifest/agent-c8d9b115.jsonl"
    ).turns
    assert {t.session_id for t in beside} == {"agent-c8d9b115"}
    assert beside[0].parent_uuid == "a7da6a22-facc-4fcd-8bab-f83c87862004"


def test_claude_split_assistant_message_is_one_turn_with_named_results() -> None:
    path = CORPUS / (
        "claude/daaain__claude-code-log__real_projects/-experiments-worktrees/"
        "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    )
    turns = read_unit(path).turns
    # msg_…7eZeAH: text + six TaskCreate calls written as 7 records, results interleaved.
    creator = next(t for t in turns if sum(b.tool_name == "TaskCreate" for b in t.blocks) == 6)
    assert creator.role == "assistant"
    assert creator.blocks[0].block_type == "text"
    results = [t for t in turns if t.seq in range(creator.seq + 1, creator.seq + 7)]
    assert [t.blocks[0].tool_name for t in results] == ["TaskCreate"] * 6
    bash = next(b for t in turns for b in t.blocks if b.tool_name == "Bash")
    assert bash.text.startswith("command: git status && git log --oneline -5")


def test_claude_schema_fixture_compaction_and_images() -> None:
    turns = read_unit(CORPUS / "claude/jazzyalex__agent-sessions__stage0_claude_small.jsonl").turns
    counts = Counter(t.session_id for t in turns)
    assert counts == {"agent-u1": 7, "ses_stage0_small": 2, "[trimmed for fixture]": 7}
    compaction = [b for t in turns for b in t.blocks if b.note == "compaction"]
    assert [b.text for b in compaction] == ["Summary of prior context."]
    texts = " ".join(b.text for t in turns for b in t.blocks)
    assert "[image elided]" in texts and "base64" not in texts


def _pi_expectations(path: Path) -> tuple[int, int, int]:
    """(turns, tool_use, tool_result) counted from the entries."""
    turns = tool_uses = tool_results = 0
    for entry in json_lines(path):
        if entry.get("type") in ("compaction", "branch_summary"):
            turns += bool(str(entry.get("summary") or "").strip())
            continue
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        if role == "user":
            turns += _nonblank(content)
        elif role == "assistant":
            calls = [c for c in content if c.get("type") == "toolCall"]
            said = [
                c
                for c in content
                if str(c.get("text") or c.get("thinking") or "").strip()
                and c.get("type") in ("text", "thinking")
            ]
            tool_uses += len(calls)
            turns += bool(calls or said)
        elif role == "toolResult":
            tool_results += _nonblank(content)
            turns += _nonblank(content)
        elif role == "bashExecution":
            tool_uses += 1
            tool_results += bool(str(message.get("output") or "").strip())
            turns += 1
    return turns, tool_uses, tool_results


@pytest.mark.parametrize("path", PI_FILES, ids=_id)
def test_pi_turns_match_the_entries(path: Path) -> None:
    result = read_unit(path)
    header = json_lines(path)[0]
    assert {t.session_id for t in result.turns} == {header["id"]}
    assert {t.workdir for t in result.turns} == {header["cwd"]}
    kinds = block_kinds(result.turns)
    assert (len(result.turns), kinds["tool_use"], kinds["tool_result"]) == _pi_expectations(path)


def test_pi_run_together_line_yields_both_entries() -> None:
    path = CORPUS / "pi/badlogic__pi-mono__compact.jsonl"
    turns = read_unit(path).turns
    session = turns[0].session_id
    on_line = [t for t in turns if t.turn_uuid.startswith(f"{session}:1013")]
    assert len(on_line) == 2


CODEX_EXPECTED = {
    # file: (session id, roles in order, block kinds) — verified by reading the files.
    "funes-fixtures/codex_session.jsonl": (
        "019ef2fb-6574-7f83-bd99-9118713271f2",
        ["user", "assistant", "tool", "assistant", "tool"],
        {"text": 2, "thinking": 1, "tool_use": 2, "tool_result": 2},
    ),
    "generated/codex/two-turns-exec-resume.jsonl": (
        "01a22649-6128-7c40-bc65-8be0a0e4403c",
        ["user", "assistant", "tool", "assistant", "user", "assistant"],
        {"text": 4, "tool_use": 1, "tool_result": 1},
    ),
    "generated/codex/e2e-mcp-tool-call.jsonl": (
        "01a22648-b62f-7d60-908c-3bf6e8bc6ec6",
        ["user", "assistant", "tool", "assistant"],
        {"text": 2, "tool_use": 1, "tool_result": 1},
    ),
}


@pytest.mark.parametrize("name", sorted(CODEX_EXPECTED))
def test_codex_turns(name: str) -> None:
    session, roles, kinds = CODEX_EXPECTED[name]
    turns = read_unit(CORPUS / name).turns
    assert {t.session_id for t in turns} == {session}
    assert [t.role for t in turns] == roles
    assert dict(block_kinds(turns)) == kinds
    text = " ".join(b.text for t in turns for b in t.blocks)
    assert "<environment_context>" not in text and "<skills_instructions>" not in text


def test_codex_prompt_written_twice_is_indexed_once_and_tools_are_named() -> None:
    path = CORPUS / (
        "codex/AcidicSoil__codex-session-view__rollout-2025-11-17T15-30-28-"
        "019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
    )
    records = json_lines(path)
    calls = sum(r.get("payload", {}).get("type") == "function_call" for r in records)
    turns = read_unit(path).turns
    prompts = [t for t in turns if t.role == "user"]
    assert len(prompts) == 1
    assert prompts[0].blocks[0].text.startswith("finish up the users work by rigging up")
    uses = [b for t in turns for b in t.blocks if b.block_type == "tool_use"]
    assert len(uses) == calls
    assert uses[0].text == "command: ls\nworkdir: /home/user/projects/temp/chatbot-ui"
    results = [b for t in turns for b in t.blocks if b.block_type == "tool_result"]
    named = {
        r["payload"]["call_id"]: r["payload"]["name"]
        for r in records
        if r.get("payload", {}).get("type") == "function_call"
    }
    assert [b.tool_name for b in results] == [named[b.tool_use_id] for b in results]
    assert not results[0].text.startswith('{"output"')


def test_codex_mcp_tool_keeps_its_namespace() -> None:
    turns = read_unit(CORPUS / "generated/codex/e2e-mcp-tool-call.jsonl").turns
    names = {b.tool_name for t in turns for b in t.blocks if b.tool_name}
    assert names == {"mcp__funes__recall"}


def test_codex_several_session_meta_lines_stay_one_session() -> None:
    path = CORPUS / "codex/jazzyalex__agent-sessions__stage0_codex_small.jsonl"
    metas = [r for r in json_lines(path) if r.get("type") == "session_meta"]
    assert len(metas) == 7
    turns = read_unit(path).turns
    assert {t.session_id for t in turns} == {metas[0]["payload"]["id"]}
    notes = Counter(b.note for t in turns for b in t.blocks if b.note)
    compacted = sum(r.get("type") == "compacted" for r in json_lines(path))
    assert notes["compaction"] == compacted - 1  # one `compacted` has an empty message
    assert next(t.blocks[0].text for t in turns if t.role == "user") == "List the files"


@pytest.mark.parametrize("name", ["hermes-e2e-state.db", "hermes-mcp-state.db"])
def test_hermes_database_rows_become_turns(name: str, tmp_path: Path) -> None:
    for file in (CORPUS / "generated/hermes").glob(f"{name}*"):
        shutil.copy(file, tmp_path / file.name)
    path = tmp_path / name
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT id, session_id, role FROM messages WHERE role != 'system' ORDER BY id"
    ).fetchall()
    cwd = dict(conn.execute("SELECT id, cwd FROM sessions").fetchall())
    conn.close()
    turns = read_unit(path).turns
    assert [(int(t.turn_uuid), t.session_id, t.role) for t in turns] == rows
    assert all(t.workdir == cwd[t.session_id] for t in turns)
    tool = next(t for t in turns if t.role == "tool")
    call = next(b for t in turns for b in t.blocks if b.block_type == "tool_use")
    assert tool.blocks[0].tool_name == call.tool_name
    assert call.text == "what is the answer"  # a one-argument call shows just the value


def test_hermes_export_matches_the_database_turn_for_turn() -> None:
    folder = CORPUS / "generated/hermes"
    from_db = read_unit(folder / "hermes-mcp-state.db").turns
    exported = read_unit(folder / "hermes-mcp-sessions-export.jsonl").turns

    def key(t: Turn) -> tuple:
        return (t.session_id, t.turn_uuid, t.seq, [(b.block_type, b.text) for b in t.blocks])

    assert [key(t) for t in exported] == [key(t) for t in from_db]


@pytest.mark.parametrize(
    ("name", "turns", "kinds"),
    [
        ("jazzyalex__agent-sessions__stage0_hermes_small.json", 2, {"text": 2}),
        (
            "jazzyalex__agent-sessions__stage0_hermes_large.json",
            4,
            {"text": 3, "thinking": 1, "tool_use": 1, "tool_result": 1},
        ),
    ],
)
def test_hermes_session_logs(name: str, turns: int, kinds: dict[str, int]) -> None:
    result = read_unit(CORPUS / "hermes" / name)
    assert len(result.turns) == turns
    assert dict(block_kinds(result.turns)) == kinds
    assert result.turns[0].workdir in ("/tmp/hermes-small", "~/Repository/Codex-History")


# --- incremental reading: two halves give the turns of one whole read ----------------------------

HALVES = [
    "claude/daaain__claude-code-log__real_projects/-experiments-worktrees/"
    "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    "claude/d-kimuson__claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    "claude/jazzyalex__agent-sessions__stage0_claude_small.jsonl",
    "codex/AcidicSoil__codex-session-view__rollout-2025-11-17T15-30-28-"
    "019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
    "codex/jazzyalex__agent-sessions__stage0_codex_small.jsonl",
    "pi/badlogic__pi-mono__compact.jsonl",
    "generated/hermes/hermes-mcp-sessions-export-trace.jsonl",
]


def _snapshot(turn: Turn) -> tuple:
    blocks = [(b.block_type, b.text, b.tool_name, b.note) for b in turn.blocks]
    return (turn.seq, turn.role, turn.parent_uuid, turn.ts, turn.workdir, blocks)


@pytest.mark.parametrize("name", HALVES)
def test_reading_in_two_halves_equals_reading_whole(name: str, tmp_path: Path) -> None:
    source = CORPUS / name
    data = source.read_bytes()
    whole = {k: _snapshot(t) for k, t in latest_by_uuid(read_unit(source).turns).items()}
    lines = data.splitlines(keepends=True)
    for cut in sorted({len(lines) // 3, len(lines) // 2, (2 * len(lines)) // 3}):
        copy = tmp_path / f"{cut}-{source.name}"
        copy.write_bytes(b"".join(lines[:cut]))
        first = read_unit(copy)
        with copy.open("ab") as handle:
            handle.write(b"".join(lines[cut:]))
        second = read_unit(copy, first.resume)
        earlier = latest_by_uuid(first.turns)
        for turn in second.turns:
            before = earlier.get((turn.session_id, turn.turn_uuid))
            if before is not None:  # re-emitted: same seq, old blocks kept at their indices
                assert turn.seq == before.seq
                assert _snapshot(turn)[5][: len(before.blocks)] == _snapshot(before)[5]
        merged = latest_by_uuid(first.turns + second.turns)
        halves = {(k[0], k[1]): _snapshot(t) for k, t in merged.items()}
        assert halves == {(k[0], k[1]): v for k, v in whole.items()}, f"cut at line {cut}"
        assert read_unit(copy, second.resume).turns == []

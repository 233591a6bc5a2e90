"""Which units an index run reads, and how many chunks each gives, for a folder holding every
agent's transcripts and for `--all` over every agent's home: pinned, so that how the folders are
walked can change without changing what is indexed."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from backports import zstd
from trace_fixtures import CORPUS

from funes.index.indexer import discover_units, index
from funes.index.store import ChunkStore

CLAUDE_PROJECT = CORPUS / "claude/daaain__claude-code-log__real_projects/-src-experiments-claude_p"
HERMES_LOG = CORPUS / "hermes/jazzyalex__agent-sessions__stage0_hermes_small.json"
# A session of hermes-mcp-state.db: its legacy log is not read (the database holds it).
SESSION_IN_DB = "20261129_075440_237369"


def _copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)
    return target


def _zstd(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(zstd.compress(source.read_bytes()))
    return target


def _parquet(target: Path, session: str) -> Path:
    messages = [
        json.dumps({"role": "user", "content": "why is the cache cold?"}),
        json.dumps({"role": "assistant", "content": "the warm-up job was disabled in May"}),
    ]
    table = pa.table({"session_id": [session], "messages": [messages], "cwd": ["/w"]})
    target.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, target)
    return target


def _claude(root: Path) -> None:
    """A Claude Code project folder (sessions, subagents) and a `tool-results/` folder beside
    them, which holds tool output, never a transcript, whatever it looks like."""
    shutil.copytree(CLAUDE_PROJECT, root, dirs_exist_ok=True)
    _copy(CORPUS / "funes-fixtures/claude_session.jsonl", root / "s-fixture.jsonl")
    results = root / "29ccd257-68b1-427f-ae5f-6524b7cb6f20" / "tool-results"
    _copy(CORPUS / "generated/claude/e2e-mcp-tool-call.jsonl", results / "toolu_01.jsonl")
    (results / "toolu_02.txt").write_text("persisted tool output\n")


def _codex(root: Path) -> None:
    """Rollouts plain, zstd-compressed, and both (a pair counts once: the plain file)."""
    pair = CORPUS / "generated/codex/e2e-mcp-tool-call.jsonl"
    _copy(pair, root / "2026/01/02/rollout-pair.jsonl")
    _zstd(pair, root / "2026/01/02/rollout-pair.jsonl.zst")
    _zstd(
        CORPUS / "generated/codex/two-turns-exec-resume.jsonl",
        root / "2026/01/03/rollout-zst-only.jsonl.zst",
    )
    _copy(CORPUS / "funes-fixtures/codex_session.jsonl", root / "2026/01/04/rollout-plain.jsonl")


def _pi(root: Path) -> None:
    _copy(CORPUS / "funes-fixtures/pi_session.jsonl", root / "--w--/2026_a.jsonl")
    _copy(CORPUS / "pi/jazzyalex__agent-sessions__stage0_pi_small.jsonl", root / "--w--/b.jsonl")
    _copy(
        CORPUS / "generated/pi/two-turns-anthropic-messages-continue.jsonl",
        root / "--x--/2026_c.jsonl",
    )


def _hermes(root: Path) -> None:
    """A Hermes home: its database, legacy logs (one of a session the database holds), an API
    dump, and its own code and caches, where no transcript is looked for."""
    _copy(CORPUS / "generated/hermes/hermes-mcp-state.db", root / "state.db")
    _copy(CORPUS / "generated/hermes/hermes-e2e-state.db", root / "profiles/work/state.db")
    _copy(HERMES_LOG, root / f"sessions/session_{SESSION_IN_DB}.json")
    _copy(HERMES_LOG, root / "sessions/session_20260429_hermes_small.json")
    export = CORPUS / "generated/hermes/hermes-e2e-sessions-export.jsonl"
    _copy(export, root / "sessions/20261129_075357_6a8038.jsonl")  # in profiles/work/state.db
    (root / "sessions/request_dump_1.json").write_text('{"api_key": "x"}')
    pi = CORPUS / "generated/pi/e2e-mcp-bridge-extension.jsonl"
    _copy(pi, root / "hermes-agent/tests/fixture.jsonl")
    _parquet(root / "cache/export.parquet", "pq-hermes-cache")


def _mixed_folder(root: Path) -> Path:
    """Every agent's files in one folder, as a user might gather them to index."""
    _claude(root / "claude-project")
    _codex(root / "codex")
    _pi(root / "pi")
    _hermes(root / "hermes-copy")
    _copy(CORPUS / "generated/hermes/hermes-e2e-sessions-export-trace.jsonl", root / "trace.jsonl")
    _parquet(root / "exports/sessions.parquet", "pq-export")
    (root / "README.md").write_text("not a transcript\n")
    (root / "notes.json").write_text('{"a": 1}\n')
    return root


def _chunks_per_unit(root: Path) -> set[tuple[str, int]]:
    paths = ChunkStore.open().scan(["source_path"]).column("source_path").to_pylist()
    return {(str(Path(p).relative_to(root)), n) for p, n in Counter(paths).items()}


MIXED_FOLDER = {
    ("claude-project/256ba646-2c15-437a-98e9-4171aafd030e.jsonl", 20),
    ("claude-project/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl", 18),
    ("claude-project/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl", 138),
    ("claude-project/2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl", 31),
    ("claude-project/94604a7b-062f-4369-bdf0-da948381c3e5.jsonl", 3),
    ("claude-project/s-fixture.jsonl", 3),
    ("codex/2026/01/02/rollout-pair.jsonl", 4),
    ("codex/2026/01/03/rollout-zst-only.jsonl.zst", 6),
    ("codex/2026/01/04/rollout-plain.jsonl", 7),
    ("exports/sessions.parquet", 2),
    ("hermes-copy/cache/export.parquet", 2),
    ("hermes-copy/hermes-agent/tests/fixture.jsonl", 4),
    ("hermes-copy/profiles/work/state.db", 6),
    ("hermes-copy/sessions/session_20260429_hermes_small.json", 2),
    ("hermes-copy/state.db", 6),
    ("pi/--w--/2026_a.jsonl", 4),
    ("pi/--w--/b.jsonl", 6),
    ("pi/--x--/2026_c.jsonl", 6),
    ("trace.jsonl", 6),
}

AGENT_HOMES = {
    ("claude/projects/-w/256ba646-2c15-437a-98e9-4171aafd030e.jsonl", 20),
    ("claude/projects/-w/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl", 18),
    ("claude/projects/-w/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl", 138),
    ("claude/projects/-w/2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl", 31),
    ("claude/projects/-w/94604a7b-062f-4369-bdf0-da948381c3e5.jsonl", 3),
    ("claude/projects/-w/s-fixture.jsonl", 3),
    ("codex/archived_sessions/rollout-old.jsonl", 25),
    ("codex/sessions/2026/01/02/rollout-pair.jsonl", 4),
    ("codex/sessions/2026/01/03/rollout-zst-only.jsonl.zst", 6),
    ("codex/sessions/2026/01/04/rollout-plain.jsonl", 7),
    ("hermes/profiles/work/state.db", 6),
    ("hermes/sessions/session_20260429_hermes_small.json", 2),
    ("hermes/state.db", 6),
    ("pi-agent/sessions/--w--/2026_a.jsonl", 4),
    ("pi-agent/sessions/--w--/b.jsonl", 6),
    ("pi-agent/sessions/--x--/2026_c.jsonl", 6),
}


def test_indexing_a_mixed_folder_reads_each_unit_once_by_its_own_source(tmp_path: Path) -> None:
    root = _mixed_folder(tmp_path / "mixed").resolve()
    report = index([root])
    found = _chunks_per_unit(root)
    assert found == MIXED_FOLDER
    assert report.units_total == 19  # the plain and .zst copies of one rollout are one unit
    units = {str(Path(u.key).relative_to(root)) for u in discover_units([root])}
    assert units == {unit for unit, _ in MIXED_FOLDER}


def test_index_all_reads_each_agent_home_with_its_own_source(tmp_path: Path) -> None:
    # The homes conftest points every agent at: tmp_path/claude, codex, pi-agent, hermes.
    _claude(tmp_path / "claude/projects/-w")
    # No source sweeps for Parquet files; a Codex log is not a session.
    _parquet(tmp_path / "claude/projects/-w/stray.parquet", "pq-stray")
    _codex(tmp_path / "codex/sessions")
    _copy(
        CORPUS / "codex/jazzyalex__agent-sessions__stage0_codex_small.jsonl",
        tmp_path / "codex/archived_sessions/rollout-old.jsonl",
    )
    _copy(CORPUS / "funes-fixtures/codex_session.jsonl", tmp_path / "codex/log/not-a-session.jsonl")
    _pi(tmp_path / "pi-agent/sessions")
    _hermes(tmp_path / "hermes")
    report = index(everything=True)
    found = _chunks_per_unit(tmp_path)
    assert found == AGENT_HOMES
    assert report.units_total == 16
    units = {str(Path(u.key).relative_to(tmp_path)) for u in discover_units()}
    assert units == {unit for unit, _ in AGENT_HOMES}


def test_each_folder_is_listed_once_for_every_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _mixed_folder(tmp_path / "mixed").resolve()
    _hermes(tmp_path / "hermes")  # the Hermes home of this test
    folders = Counter(str(p) for p in [root, *root.rglob("*")] if p.is_dir())
    listed: Counter[str] = Counter()
    scandir = os.scandir

    def counting_scandir(path: str | os.PathLike[str] = ".") -> object:
        listed[os.fspath(path)] += 1
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    assert len(discover_units([root])) == len(MIXED_FOLDER)
    assert listed == folders  # one walk, not one per source

    listed.clear()
    assert discover_units()  # --all: each agent's home for its own source
    home = tmp_path / "hermes"
    # Of a Hermes home (which also holds its code and caches) only where it writes sessions.
    hermes_places = [home, home / "sessions", home / "profiles", home / "profiles/work"]
    assert listed == Counter(str(p) for p in hermes_places)

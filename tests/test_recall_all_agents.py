"""One memory holding a real session of every agent funes reads answers one recall across them.

Each transcript below was written by the real agent through the agent kit, with the same prompt
("What did we decide about the answer? Use the recall tool."); a new agent is one line in
AGENT_TRANSCRIPTS. A `.sql` file is a dump of an agent's SQLite tables, loaded into a database of
the same name first.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from conftest import CORPUS

from funes.index.indexer import index
from funes.retrieve.pipeline import recall

FIXTURES = Path(__file__).parent / "fixtures"
AGENT_TRANSCRIPTS: dict[str, Path] = {
    "claude_code": CORPUS / "generated/claude/e2e-mcp-tool-call.jsonl",
    "codex": CORPUS / "generated/codex/e2e-mcp-tool-call.jsonl",
    "pi": CORPUS / "generated/pi/e2e-openai-completions-tool-call.jsonl",
    "hermes": CORPUS / "generated/hermes/hermes-mcp-state.db",
    "opencode": FIXTURES / "opencode/recall-run.sql",
    "copilot": FIXTURES / "copilot/recall-run.jsonl",
    "gemini": FIXTURES / "gemini/tmp/proj/chats/session-2026-12-01T15-34-4331fb56.jsonl",
    "qwen": FIXTURES
    / "qwen/projects/-home-dev-proj/chats/9fd2c81f-ebc9-4506-9e9e-2c211e92839d.jsonl",
}


def place(transcript: Path, folder: Path) -> Path:
    """A copy of `transcript` in `folder` (its own subfolder, named as the agent names it)."""
    folder.mkdir(parents=True)
    if transcript.suffix == ".sql":
        target = folder / transcript.with_suffix(".db").name
        with sqlite3.connect(target) as conn:
            conn.executescript(transcript.read_text())
        conn.close()
        return target
    target = folder / transcript.name
    shutil.copy(transcript, target)
    return target


def test_one_recall_finds_every_agents_session(tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    for harness, transcript in AGENT_TRANSCRIPTS.items():
        place(transcript, transcripts / harness)

    report = index(paths=[transcripts])
    result = recall("what did we decide about the answer", k=50, neighbors=0)

    assert report.warnings == []
    assert {hit.harness for hit in result.hits} == set(AGENT_TRANSCRIPTS)

"""Gemini CLI and Qwen Code sessions go through the one index: a memory holding every agent's
sessions answers one recall across them, and `--harness gemini|qwen` narrows it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from funes.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


def _funes(*args: str) -> Any:
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_one_memory_recalls_across_all_agents(corpus: Path, tmp_path: Path) -> None:
    folder = tmp_path / "history"
    folder.mkdir()
    for name in ("claude_session.jsonl", "codex_session.jsonl", "pi_session.jsonl"):
        shutil.copy(corpus / "funes-fixtures" / name, folder / name)
    shutil.copy(corpus / "generated/hermes/hermes-mcp-state.db", folder / "state.db")
    shutil.copytree(FIXTURES / "gemini", folder / "gemini")
    shutil.copytree(FIXTURES / "qwen", folder / "qwen")

    CliRunner().invoke(main, ["index", str(folder)], catch_exceptions=False)

    agents = set(_funes("status")["agents"])
    assert {"claude_code", "codex", "pi", "hermes", "gemini", "qwen"} <= agents
    hits = _funes("recall", "-k", "20", "what did we decide about the answer recall tool")["hits"]
    assert {"gemini", "qwen"} <= {hit["harness"] for hit in hits}
    assert len({hit["harness"] for hit in hits}) >= 3  # one ranked list across agents
    only = _funes("recall", "--harness", "qwen", "the answer")["hits"]
    assert only and {hit["harness"] for hit in only} == {"qwen"}
    assert {hit["workdir"] for hit in only} == {"/home/dev/proj"}
    for harness, session in (
        ("gemini", "4331fb56-00a2-417b-b824-c2c75ac23f4c"),
        ("qwen", "9fd2c81f-ebc9-4506-9e9e-2c211e92839d"),
    ):
        listed = _funes("sessions", "--harness", harness)
        assert [(s["session_id"], s["harness"]) for s in listed] == [(session, harness)]

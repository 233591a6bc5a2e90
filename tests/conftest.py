"""Every test runs offline, with its own funes home, and never touches the real $HOME."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["LANCEDB_LOG"] = "error"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"


@pytest.fixture(autouse=True)
def tmp_funes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "funes-home"
    monkeypatch.setenv("FUNES_HOME", str(home))
    monkeypatch.delenv("FUNES_MEMORY", raising=False)
    # Agent roots point into the test's own folder unless a test says otherwise.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gemini-home"))
    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qwen"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))  # opencode's database
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))  # opencode's config
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot"))
    # No warm recall service (funes.integrations.warm) unless a test asks for one: each test
    # has its own home, and a service per test would linger for its idle time.
    monkeypatch.setenv("FUNES_WARM_IDLE_S", "0")
    return home


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.fail(f"the shared corpus is missing at {CORPUS}")
    return CORPUS

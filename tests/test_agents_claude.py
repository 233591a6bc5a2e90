"""The real Claude Code, driven by the scripted model, with `funes add claude`: it loads the
plugin, calls recall on its own and receives the seeded passage with its provenance, its Stop
hook indexes the turn just run, and `funes remove claude` leaves only the user's settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_harness import (
    make_agent_env,
    require_agent,
    stub_model,
    wait_for_hook_worker,
    write_claude_transcript,
)

pytestmark = [pytest.mark.agents, pytest.mark.slow]

SEED_SESSION = "5eed0c1a-0000-4000-8000-00000000c1a0"
FACT = "We pinned the marzipan-okapi cache to shard 6127 because shard 12 corrupts parquet footers."
QUESTION = "which shard is the marzipan-okapi cache pinned to"
TURN_MARKER = "bladderwort8830"
TOOL = "mcp__plugin_funes_funes__recall"
USER_SETTINGS = {"cleanupPeriodDays": 99, "env": {"USER_KEY": "kept"}}


def test_claude_code_recalls_through_the_plugin_and_indexes_its_turn(tmp_path: Path) -> None:
    claude = require_agent("claude")
    sandbox = make_agent_env(tmp_path, "claude", ENABLE_TOOL_SEARCH="false")
    claude_dir = sandbox.home / ".claude"
    write_claude_transcript(
        claude_dir, sandbox.home / "old-proj", SEED_SESSION, [(QUESTION + "?", FACT)]
    )
    settings = claude_dir / "settings.json"
    settings.write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")

    added = sandbox.funes("add", "claude", "--yes", "--json")
    assert added.returncode == 0, added.stderr
    result = json.loads(added.stdout)
    assert str(settings) in result["changed"]
    assert result["indexed"]["chunks_added"] > 0

    # (1) Claude Code sees the plugin: valid, installed, enabled.
    plugin = sandbox.funes_home / "integrations" / "claude-plugin" / "funes"
    validate = sandbox.run([claude, "plugin", "validate", plugin])
    assert "Validation passed" in validate.stdout, validate.stdout + validate.stderr
    listed = sandbox.run([claude, "plugin", "list", "--json"])
    assert "funes@funes" in listed.stdout

    # (2) A scripted turn: the model calls recall, Claude Code runs it through funes mcp.
    with stub_model(tmp_path / "stub", tool_re=TOOL, tool_args={"query": QUESTION}) as stub:
        env = {**sandbox.env, "ANTHROPIC_BASE_URL": stub.base_url, "ANTHROPIC_API_KEY": "dummy"}
        turn = sandbox.run(
            [
                claude,
                "-p",
                f"Remember {TURN_MARKER}. Which shard?",
                "--allowedTools",
                TOOL,
                "--output-format",
                "json",
            ],
            env=env,
            timeout=240,
        )
        assert turn.returncode == 0, turn.stderr[-2000:]
        results = stub.tool_results()
    passage = next((r for r in results if "6127" in r), None)
    assert passage is not None, results
    assert SEED_SESSION in passage  # provenance: the get line names the session it came from
    new_session = json.loads(turn.stdout)["session_id"]

    # (3) The Stop hook queued the turn; the worker indexed it.
    wait_for_hook_worker(sandbox.funes_home, timeout=240)
    assert "claude Stop" in (sandbox.funes_home / "logs" / "worker.log").read_text()
    found = sandbox.funes("recall", TURN_MARKER, "--json")
    assert found.returncode == 0, found.stderr
    assert new_session in found.stdout

    # (4) Remove: no funes entry in any Claude config; the user's own settings survive.
    removed = sandbox.funes("remove", "claude")
    assert removed.returncode == 0, removed.stderr
    data = json.loads(settings.read_text())
    assert {key: data[key] for key in USER_SETTINGS} == USER_SETTINGS
    for config in (
        settings,
        claude_dir / "plugins" / "known_marketplaces.json",
        claude_dir / "plugins" / "installed_plugins.json",
    ):
        assert "funes" not in config.read_text()
    again = sandbox.funes("recall", QUESTION, "--json")  # the memory is kept
    assert "6127" in again.stdout

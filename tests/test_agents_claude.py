"""The real Claude Code, driven by the scripted model, with `funes add claude`: it loads the
plugin, calls recall on its own and receives the seeded passage with its provenance, its Stop
hook indexes the turn just run, and `funes remove claude` leaves only the user's settings."""

from __future__ import annotations

import json
from pathlib import Path

import agent_harness as harness

pytestmark = harness.AGENT_MARKS

SEED_SESSION = "5eed0c1a-0000-4000-8000-00000000c1a0"
FACT = "We pinned the marzipan-okapi cache to shard 6127 because shard 12 corrupts parquet footers."
QUESTION = "which shard is the marzipan-okapi cache pinned to"
TURN_MARKER = "bladderwort8830"
TOOL = "mcp__plugin_funes_funes__recall"
USER_SETTINGS = {"cleanupPeriodDays": 99, "env": {"USER_KEY": "kept"}}


def test_claude_code_recalls_through_the_plugin_and_indexes_its_turn(tmp_path: Path) -> None:
    claude, sandbox = harness.agent_sandbox(
        tmp_path, "claude", ENABLE_TOOL_SEARCH="false", **harness.RESIDENT
    )
    claude_dir = sandbox.home / ".claude"
    harness.write_claude_transcript(
        claude_dir, sandbox.home / "old-proj", SEED_SESSION, [(QUESTION + "?", FACT)]
    )
    settings = claude_dir / "settings.json"
    settings.write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")

    result = sandbox.add("claude")
    assert str(settings) in result["changed"]
    assert result["indexed"]["chunks_added"] > 0

    # (1) Claude Code sees the plugin: valid, installed, enabled.
    plugin = sandbox.funes_home / "integrations" / "claude-plugin" / "funes"
    validate = sandbox.run([claude, "plugin", "validate", plugin])
    assert "Validation passed" in validate.stdout, validate.stdout + validate.stderr
    listed = sandbox.run([claude, "plugin", "list", "--json"])
    assert "funes@funes" in listed.stdout

    # (2) A scripted turn: the model calls recall, Claude Code runs it through funes mcp.
    with harness.stub_model(tmp_path / "stub", tool_re=TOOL, tool_args={"query": QUESTION}) as stub:
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
        passage = stub.passage("6127")
    # Claude Code's `funes mcp` handed the call to the memory's resident service.
    assert harness.answered_by_resident(sandbox.funes_home) >= 1
    # Provenance: the hit's get line, run as printed, prints the turn of the seeded session.
    assert f"session {SEED_SESSION}," in harness.run_get_line(sandbox, passage, SEED_SESSION)
    new_session = json.loads(turn.stdout)["session_id"]

    # (3) The Stop hook queued the turn; the worker indexed it.
    found = sandbox.recall_once_indexed(TURN_MARKER, "--json", naming=new_session, timeout=240)
    assert "claude Stop" in sandbox.worker_log()
    assert new_session in found

    # (4) Remove: no funes entry in any Claude config; the user's own settings survive.
    sandbox.funes_ok("remove", "claude")
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
    harness.stop_resident(sandbox.funes_home)

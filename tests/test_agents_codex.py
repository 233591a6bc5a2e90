"""The real Codex CLI, driven by the scripted model, with `funes add codex --trust-hooks`: it
lists the funes MCP server, `codex exec` calls recall on its own and receives the seeded passage
with its provenance, its hooks index the turn just run, and `funes remove codex` gives the user
back their config files byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import agent_harness as harness

pytestmark = harness.AGENT_MARKS

SEED_SESSION = "5eed0c0d-0000-4000-8000-0000000c0de0"
FACT = "The wombat-sextant importer retries 17 times because the vendor SFTP drops every 5th login."
QUESTION = "how many times does the wombat-sextant importer retry"
TURN_MARKER = "hornwort4417"

USER_CONFIG = """\
# the user's own Codex config
model = "stub-model"
model_provider = "stub"   # scripted model on loopback

[model_providers.stub]
name = "Stub"
base_url = "{base_url}/v1"
wire_api = "responses"
env_key = "STUB_API_KEY"

[mcp_servers.users_own]
command = "/bin/true"
"""
USER_HOOKS = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}\n'


def test_codex_recalls_through_mcp_and_indexes_its_turn(tmp_path: Path) -> None:
    codex, sandbox = harness.agent_sandbox(
        tmp_path, "codex", STUB_API_KEY="dummy", **harness.RESIDENT
    )
    codex_home = sandbox.home / ".codex"
    sandbox.env["CODEX_HOME"] = str(codex_home)
    codex_home.mkdir()
    sandbox.index_claude_session(
        sandbox.root / "fixture", sandbox.home / "old", SEED_SESSION, [(QUESTION + "?", FACT)]
    )

    with harness.stub_model(
        tmp_path / "stub", tool_re="recall", tool_args={"query": QUESTION}
    ) as stub:
        user_config = USER_CONFIG.format(base_url=stub.base_url)
        (codex_home / "config.toml").write_text(user_config)
        (codex_home / "hooks.json").write_text(USER_HOOKS)

        added = sandbox.funes_ok("add", "codex", "--yes", "--trust-hooks", "--json")
        assert str(codex_home / "config.toml") in json.loads(added.stdout)["changed"]

        # (1) Codex sees the server.
        listed = sandbox.run([codex, "mcp", "list", "--json"])
        assert any(s.get("name") == "funes" for s in json.loads(listed.stdout)), listed.stdout

        # (2) A scripted turn: the model calls recall; Codex runs it through funes mcp.
        turn = sandbox.run(
            [codex, "exec", "--skip-git-repo-check", f"Remember {TURN_MARKER}. How many retries?"],
            timeout=240,
        )
        assert turn.returncode == 0, turn.stderr[-2000:]
        passage = stub.passage("17 times")
    # Codex's `funes mcp` handed the call to the memory's resident service.
    assert harness.answered_by_resident(sandbox.funes_home) >= 1
    # Provenance: the hit's get line, run as printed, prints the turn of the seeded session.
    assert f"session {SEED_SESSION}," in harness.run_get_line(sandbox, passage, SEED_SESSION)

    # (3) The trusted Stop hook (and notify) queued the turn; the worker indexed it.
    options = ("--json", "--harness", "codex")
    found = sandbox.recall_once_indexed(TURN_MARKER, *options, naming=TURN_MARKER, timeout=240)
    worker_log = sandbox.worker_log()
    assert "codex Stop" in worker_log  # the trusted hook ran, not only the notify fallback
    assert TURN_MARKER in found
    harness.stop_resident(sandbox.funes_home)

    # (4) Remove: the user's files come back byte for byte; the memory is kept.
    sandbox.funes_ok("remove", "codex")
    config_after = (codex_home / "config.toml").read_text()
    assert "funes" not in config_after
    assert config_after == user_config
    assert (codex_home / "hooks.json").read_text() == USER_HOOKS

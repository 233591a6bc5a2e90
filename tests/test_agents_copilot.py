"""The real GitHub Copilot CLI, driven by the scripted model, with funes added: recalls, gets
indexed.

One sandbox runs the whole story in order (each step needs the one before): a past session with
a unique fact is indexed; `funes add copilot`; a scripted prompt makes `copilot -p` call
`funes-recall` on its own and the model receives the seeded passage with its provenance; the
agentStop hook indexes the new turn from its events file; `funes doctor` sees the MCP server
listed and the hook fired; `funes remove copilot` gives the user's settings back byte for byte.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import agent_harness as harness

pytestmark = harness.AGENT_MARKS

SEED_SESSION = "0199c0de-5eed-7000-8000-00000c0b1107"
FACT = (
    "We capped the marigold-ledger importer at 400 rows per batch because the bank's SFTP "
    "server drops connections after 30 seconds."
)
QUESTION = "why is the marigold-ledger importer capped per batch"
# A word only the new turn contains, to find it again after the hook indexed it.
TURN_MARKER = "sorrelwick8812"
# The ~235 MB runtime Copilot unpacks on its first start, unpacked once by the agent kit.
RUNTIME = harness.AGENT_CLIENTS / "copilot-cache" / "pkg"
# The user's settings.json: their own hook, laid out by hand.
USER_SETTINGS = """{
  "autoUpdate": false,
  "hooks": {
    "userPromptSubmitted": [ { "type": "command", "bash": "true", "timeoutSec": 5 } ]
  }
}
"""


def copilot_env(root: Path, base_url: str) -> tuple[Path, harness.AgentEnv]:
    copilot, env = harness.agent_sandbox(
        root,
        "copilot",
        COPILOT_OFFLINE="true",
        COPILOT_AUTO_UPDATE="false",
        COPILOT_PROVIDER_TYPE="openai",
        COPILOT_PROVIDER_API_KEY="dummy",
        COPILOT_PROVIDER_BASE_URL=f"{base_url}/v1",
        COPILOT_MODEL="stub-model",
    )
    for key in ("GITHUB_TOKEN", "GH_TOKEN", "COPILOT_GITHUB_TOKEN", "COPILOT_HOME"):
        env.env.pop(key, None)
    if RUNTIME.is_dir():
        cache = env.home / ".cache" / "copilot"
        cache.mkdir(parents=True)
        (cache / "pkg").symlink_to(RUNTIME)
    return copilot, env


def test_copilot_with_funes_recalls_a_past_session_and_indexes_its_own_turn(
    tmp_path: Path,
) -> None:
    with harness.stub_model(
        tmp_path / "stub", tool_re="^funes-recall$", tool_args={"query": QUESTION}
    ) as stub:
        copilot, env = copilot_env(tmp_path, stub.base_url)
        settings = env.user_file(".copilot/settings.json", USER_SETTINGS)
        env.index_claude_session(
            env.home / ".claude",
            Path("/home/dev/ledger"),
            SEED_SESSION,
            [("Why does the importer batch rows?", FACT)],
        )
        env.funes_ok("add", "copilot", "--yes")

        # 1. A scripted prompt: Copilot calls funes-recall on its own; the model gets the passage.
        prompt = f"Why is the marigold-ledger importer capped? ({TURN_MARKER})"
        run = env.run(
            [copilot, "-p", prompt, "--allow-all-tools", "--no-auto-update"],
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert {"funes-recall", "funes-get"} <= stub.offered_tools()
        system = json.dumps(stub.requests()[-1]["body"]["messages"][0])
        assert "Memory of past sessions" in system  # funes.instructions.md
        passage = stub.passage("marigold-ledger")
    assert "400 rows per batch" in passage
    assert f"session {SEED_SESSION}," in harness.run_get_line(env, passage, SEED_SESSION)
    assert "~/ledger" in harness.hit_header(passage, SEED_SESSION)

    # 2. agentStop queued the turn; the worker indexed it from the session's events file.
    (events,) = (env.home / ".copilot" / "session-state").glob("*/events.jsonl")
    session_id = events.parent.name
    options = ("--format", "agent", "--harness", "copilot")
    recalled = env.recall_once_indexed(TURN_MARKER, *options, naming=session_id)
    assert TURN_MARKER in recalled and " copilot " in recalled

    # 3. funes doctor asks Copilot: MCP server listed; the hook fired.
    checks = env.doctor_checks("copilot")
    assert checks["copilot: loaded"]["ok"] and checks["copilot: files"]["ok"], checks
    assert checks["copilot: hook"]["ok"] and "last fired" in checks["copilot: hook"]["detail"]
    assert session_id[:8] in env.funes_ok("sessions", "--harness", "copilot").stdout

    # 4. funes remove copilot: the user's settings byte for byte, no MCP config left behind.
    env.funes_ok("remove", "copilot")
    assert settings.read_text() == USER_SETTINGS
    assert not (env.home / ".copilot" / "mcp-config.json").exists()
    assert not (env.home / ".copilot" / "instructions").exists()
    listed = env.run([copilot, "mcp", "list", "--json"], timeout=60, stdin=subprocess.DEVNULL)
    assert "funes" not in listed.stdout

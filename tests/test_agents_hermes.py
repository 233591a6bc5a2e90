"""The real Hermes, driven by the scripted model, with funes added: sees it, recalls, gets indexed.

One sandbox runs the whole story in order: a past Hermes session with a unique fact (written to
state.db by Hermes's own SessionDB) is indexed; `funes add hermes` enables the funes plugin;
`hermes plugins list` shows it; a scripted prompt makes Hermes call `funes_recall` on its own and
the model receives the seeded passage with its provenance; the plugin's `on_session_end` hook
indexes the new turn from state.db; `funes remove hermes` leaves the user's config without funes.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import agent_harness as harness

pytestmark = harness.AGENT_MARKS

SEED_SESSION = "20260102_030405_5eed01"
FACT = (
    "We moved the marmalade-quasar nightly export to 02:40 UTC because the warehouse "
    "vacuum job locks the ledger tables until 02:30."
)
QUESTION = "when does the marmalade-quasar nightly export run"
TURN_MARKER = "bramblewick8813"  # a word only the new turn contains

# The user's own config.yaml. The model and security keys are test-environment settings (offline
# stub model; no lazy pip installs or binary downloads), not something funes installs.
USER_CONFIG = """# my Hermes config
model:
  provider: custom   # the scripted model
  base_url: {base_url}/v1
  default: stub-model
  api_key: dummy
  context_length: 128000
security:
  allow_lazy_installs: false
  tirith_enabled: false
"""

SEED_SCRIPT = """
import sys
from hermes_state import SessionDB
db = SessionDB()
db.create_session(sys.argv[1], "cli", model="stub-model")
db.append_message(sys.argv[1], "user", sys.argv[2])
db.append_message(sys.argv[1], "assistant", sys.argv[3], finish_reason="stop")
db.end_session(sys.argv[1], "completed")
"""


def seed_hermes_session(env: harness.AgentEnv, hermes: Path) -> Path:
    """A finished past session in ~/.hermes/state.db, written by Hermes's own SessionDB."""
    python = hermes.parent / "python"
    seeded = env.run(
        [python, "-c", SEED_SCRIPT, SEED_SESSION, "When should the nightly export run?", FACT]
    )
    assert seeded.returncode == 0, seeded.stderr
    return env.home / ".hermes" / "state.db"


def plugin_rows(env: harness.AgentEnv, hermes: Path) -> str:
    listed = env.run([hermes, "plugins", "list", "--plain", "--no-bundled"], timeout=120)
    assert listed.returncode == 0, listed.stderr
    return listed.stdout


def test_hermes_with_funes_recalls_a_past_session_and_indexes_its_own_turn(
    tmp_path: Path,
) -> None:
    hermes, env = harness.agent_sandbox(tmp_path, "hermes")
    config = env.home / ".hermes" / "config.yaml"
    config.parent.mkdir(parents=True)

    with harness.stub_model(
        tmp_path / "stub", tool_re="^funes_recall$", tool_args={"query": QUESTION}
    ) as stub:
        user_config = USER_CONFIG.format(base_url=stub.base_url)
        config.write_text(user_config)
        state_db = seed_hermes_session(env, hermes)
        env.funes_ok("index", str(state_db))
        env.funes_ok("add", "hermes", "--yes")
        assert "# my Hermes config" in config.read_text()  # comments kept

        # 1. Hermes's own CLI sees the plugin, enabled.
        assert re.search(r"^enabled\s.*\sfunes$", plugin_rows(env, hermes), re.MULTILINE)

        # 2. A scripted prompt: Hermes calls funes_recall on its own; the model gets the passage.
        prompt = f"When does the marmalade-quasar export run? ({TURN_MARKER})"
        run = env.run([hermes, "chat", "-Q", "-q", prompt], timeout=240, stdin=subprocess.DEVNULL)
        assert run.returncode == 0, run.stderr
        assert {"funes_recall", "funes_get"} <= stub.offered_tools()
        passage = stub.passage("marmalade-quasar")
    assert "02:40 UTC" in passage
    # Provenance: the seeded session, and the agent it came from.
    assert f"session {SEED_SESSION}," in harness.run_get_line(env, passage, SEED_SESSION)
    assert " hermes " in harness.hit_header(passage, SEED_SESSION)

    # 3. The on_session_end hook queued the new turn; the detached worker indexed state.db.
    match = re.search(r"session_id:\s*(\S+)", run.stdout + run.stderr)
    assert match, run.stdout
    options = ("--format", "agent", "--harness", "hermes")
    assert TURN_MARKER in env.recall_once_indexed(TURN_MARKER, *options, naming=match.group(1))

    # 4. funes remove hermes: no funes in config.yaml or the plugins; the user's config stays.
    env.funes_ok("remove", "hermes")
    after = config.read_text()
    assert "funes" not in after
    assert "# my Hermes config" in after and "provider: custom   # the scripted model" in after
    assert not (env.home / ".hermes" / "plugins" / "funes").exists()
    assert "funes" not in plugin_rows(env, hermes)

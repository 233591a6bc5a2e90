"""The real opencode, driven by the scripted model, with funes added: recalls, gets indexed.

One sandbox runs the whole story in order (each step needs the one before): a past session with
a unique fact is indexed; `funes add opencode`; a scripted prompt makes opencode call
`funes_recall` on its own and the model receives the seeded passage with its provenance; the
plugin's `session.idle` hook indexes the new turn from opencode's database; `funes doctor` sees
the plugin loaded and the hook fired; `funes remove opencode` gives the user's opencode.json back
byte for byte.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import agent_harness as harness

pytestmark = harness.AGENT_MARKS

SEED_SESSION = "0199c0de-5eed-7000-8000-0000000c0de5"
FACT = (
    "We moved the sprocket-lantern cache to Valkey 8 because Redis 7.4 changed its licence "
    "and the ops team could not ship it."
)
QUESTION = "why did the sprocket-lantern cache move to Valkey"
# A word only the new turn contains, to find it again after the hook indexed it.
TURN_MARKER = "fennelwort3307"
# opencode npm-installs @opencode-ai/plugin into its config folder at every start and, offline,
# stalls about 70 s without it: the kit's seed is that package, already installed.
SEED = harness.AGENT_CLIENTS / "opencode-seed"


def opencode_env(root: Path) -> tuple[Path, harness.AgentEnv]:
    home = root / "home"
    xdg = {
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }
    return harness.agent_sandbox(
        root,
        "opencode",
        **xdg,
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_SHARE="1",
    )


def user_config(base_url: str) -> str:
    """The user's own opencode.json (the stub as their provider), laid out by hand."""
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Stub",
        "options": {"baseURL": f"{base_url}/v1", "apiKey": "dummy"},
        "models": {"stub-model": {"name": "Stub model"}},
    }
    return (
        '{\n  "$schema": "https://opencode.ai/config.json",\n'
        '  "autoupdate": false, "share": "disabled",\n'
        f'  "provider": {{"stub": {json.dumps(provider)}}},\n'
        '  "model": "stub/stub-model",\n  "small_model": "stub/stub-model"\n}\n'
    )


def test_opencode_with_funes_recalls_a_past_session_and_indexes_its_own_turn(
    tmp_path: Path,
) -> None:
    opencode, env = opencode_env(tmp_path)
    config_dir = env.home / ".config" / "opencode"
    if (SEED / "node_modules").is_dir():
        shutil.copytree(SEED, config_dir, dirs_exist_ok=True)
    env.index_claude_session(
        env.home / ".claude",
        Path("/home/dev/shop"),
        SEED_SESSION,
        [("Why is the cache on Valkey now?", FACT)],
    )

    with harness.stub_model(
        tmp_path / "stub", tool_re="^funes_recall$", tool_args={"query": QUESTION}
    ) as stub:
        config = config_dir / "opencode.json"
        base_url = stub.base_url
        config.write_text(user_config(base_url))
        original = config.read_bytes()
        env.funes_ok("add", "opencode", "--yes")

        # 1. A scripted prompt: opencode calls funes_recall on its own; the model gets the passage.
        prompt = f"Why did we move the sprocket-lantern cache? ({TURN_MARKER})"
        run = env.run(
            [opencode, "run", "--model", "stub/stub-model", prompt],
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert {"funes_recall", "funes_get"} <= stub.offered_tools()
        system = json.dumps(stub.requests()[-1]["body"]["messages"][0])
        assert "funes_recall" in system and "Memory of past sessions" in system  # FUNES.md
        passage = stub.passage("sprocket-lantern")
    assert "Redis 7.4 changed its licence" in passage
    assert f"session {SEED_SESSION}," in harness.run_get_line(env, passage, SEED_SESSION)
    assert "~/shop" in harness.hit_header(passage, SEED_SESSION)

    # 2. session.idle queued the turn; the worker indexed it from opencode's database.
    database = env.home / ".local" / "share" / "opencode" / "opencode.db"
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as conn:
        (opencode_id,) = conn.execute("SELECT id FROM session").fetchone()
    session_id = opencode_id.removeprefix("ses_")  # as funes stores it
    options = ("--format", "agent", "--harness", "opencode")
    recalled = env.recall_once_indexed(TURN_MARKER, *options, naming=session_id)
    assert TURN_MARKER in recalled and " opencode " in recalled

    # 3. funes doctor asks opencode: plugin and MCP server loaded, hook fired.
    checks = env.doctor_checks("opencode")
    assert checks["opencode: loaded"]["ok"], checks
    assert checks["opencode: hook"]["ok"] and "last fired" in checks["opencode: hook"]["detail"]
    listed = env.funes_ok("sessions", "--harness", "opencode").stdout
    assert session_id[:8] in listed and TURN_MARKER in listed

    # 4. A funes that cannot start never breaks opencode: the plugin's hook fails silently.
    with harness.stub_model(tmp_path / "stub2", tool_re="^none$") as stub:
        config.write_text(config.read_text().replace(base_url, stub.base_url))
        broken = {**env.env, "FUNES_BIN": str(tmp_path / "no-such-funes")}
        run = env.run([opencode, "run", "hello"], env=broken, timeout=180, stdin=subprocess.DEVNULL)
        assert run.returncode == 0 and "STUB: hello" in run.stdout, run.stderr[-2000:]
        config.write_text(config.read_text().replace(stub.base_url, base_url))

    # 5. funes remove opencode: the user's file as it was, byte for byte; opencode loads no funes.
    env.funes_ok("remove", "opencode")
    assert config.read_bytes() == original
    assert not (env.funes_home / "integrations" / "opencode").exists()
    resolved = env.run([opencode, "debug", "config"], timeout=60, stdin=subprocess.DEVNULL)
    assert resolved.returncode == 0 and "funes" not in resolved.stdout

"""The real pi, driven by the scripted model, with funes added: sees it, recalls, gets indexed.

One sandbox runs the whole story in order (each step needs the one before): a past pi session
with a unique fact is indexed; `funes add pi`; pi lists the package and offers the tools; a
scripted prompt makes pi call `recall` on its own and the model receives the seeded passage with
its provenance; the `agent_end` hook indexes the new turn; `funes remove pi` leaves the user's
settings as they were.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import agent_harness as harness

pytestmark = harness.AGENT_MARKS

SEED_SESSION = "0199c0de-5eed-7000-8000-00000000fac7"
FACT = (
    "We pinned the kumquat-zephyr proxy to port 7431 because the legacy billing gateway "
    "rejects TLS 1.3 handshakes."
)
QUESTION = "which port is the kumquat-zephyr proxy pinned to"
# A word only the new turn contains, to find it again after the hook indexed it.
TURN_MARKER = "quillwort5521"


def write_pi_session(home: Path, cwd: str, session_id: str, user: str, assistant: str) -> Path:
    """A finished pi session (format v3) where pi keeps sessions, as pi itself writes them."""
    slug = "--" + cwd.strip("/").replace("/", "-") + "--"
    path = (
        home / ".pi" / "agent" / "sessions" / slug / f"2026-01-02T03-04-05-000Z_{session_id}.jsonl"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = "2026-01-02T03:04:05.000Z"
    usage = {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30}
    records = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": stamp, "cwd": cwd},
        {
            "type": "message",
            "id": "a1b2c3d4",
            "parentId": None,
            "timestamp": stamp,
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": user}],
                "timestamp": 1,
            },
        },
        {
            "type": "message",
            "id": "e5f6a7b8",
            "parentId": "a1b2c3d4",
            "timestamp": "2026-01-02T03:04:09.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": assistant}],
                "api": "openai-completions",
                "provider": "stub",
                "model": "stub-model",
                "usage": usage,
                "stopReason": "stop",
                "timestamp": 2,
            },
        },
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def write_stub_provider(env: harness.AgentEnv, base_url: str) -> None:
    models = {
        "providers": {
            "stub": {
                "baseUrl": f"{base_url}/v1",
                "api": "openai-completions",
                "apiKey": "dummy",
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [{"id": "stub-model", "name": "Stub", "contextWindow": 128000}],
            }
        }
    }
    (env.home / ".pi" / "agent" / "models.json").write_text(json.dumps(models))


def write_user_package(env: harness.AgentEnv) -> Path:
    """The user's own local pi package, which funes must leave alone."""
    package = env.home / "my-pi-tools"
    package.mkdir()
    (package / "package.json").write_text(
        json.dumps({"name": "my-pi-tools", "pi": {"extensions": ["./index.ts"]}})
    )
    (package / "index.ts").write_text("export default function () {}\n")
    return package


def test_pi_with_funes_recalls_a_past_session_and_indexes_its_own_turn(tmp_path: Path) -> None:
    pi, env = harness.agent_sandbox(tmp_path, "pi", PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0")
    settings = env.home / ".pi" / "agent" / "settings.json"
    settings.parent.mkdir(parents=True)
    user_package = write_user_package(env)
    user_settings = {"quietStartup": True, "packages": [str(user_package)]}
    settings.write_text(json.dumps(user_settings, indent=2) + "\n")

    seed = write_pi_session(
        env.home, "/home/dev/billing", SEED_SESSION, "Why does the proxy fail on TLS?", FACT
    )
    env.funes_ok("index", str(seed))
    env.funes_ok("add", "pi", "--yes")
    package = env.funes_home / "integrations" / "pi"

    # 1. pi's own CLI sees the funes package next to the user's.
    listed = env.run([pi, "list"], timeout=60)
    assert str(package) in listed.stdout and str(user_package) in listed.stdout, listed.stdout

    # 2. A scripted prompt: pi calls recall on its own; the model gets the seeded passage.
    with harness.stub_model(
        tmp_path / "stub", tool_re="^recall$", tool_args={"query": QUESTION}
    ) as stub:
        write_stub_provider(env, stub.base_url)
        prompt = f"Which port did we pin the kumquat-zephyr proxy to? ({TURN_MARKER})"
        run = env.run(
            [pi, "--provider", "stub", "--model", "stub-model", "-p", prompt],
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        assert run.returncode == 0, run.stderr
        assert {"recall", "get"} <= stub.offered_tools()
        passage = stub.passage("kumquat-zephyr")
    assert "port 7431" in passage
    # Provenance: the exact turn of the seeded session, and the agent and project it came from.
    read = harness.run_get_line(env, passage, SEED_SESSION, holding="port 7431")
    assert f"session {SEED_SESSION}," in read and "port 7431" in read
    assert harness.get_line_turn(env, passage, SEED_SESSION, "port 7431") == "e5f6a7b8"
    header = harness.hit_header(passage, SEED_SESSION)
    assert " pi " in header and "~/billing" in header

    # 3. The agent_end hook queued the new session; the detached worker indexed it.
    new_sessions = [
        p for p in (env.home / ".pi" / "agent" / "sessions").rglob("*.jsonl") if p != seed
    ]
    assert len(new_sessions) == 1
    new_session_id = new_sessions[0].stem.split("_", 1)[1]
    options = ("--format", "agent", "--harness", "pi")
    assert TURN_MARKER in env.recall_once_indexed(TURN_MARKER, *options, naming=new_session_id)

    # 4. funes remove pi: no funes entry anywhere in pi's config; the user's settings are intact.
    env.funes_ok("remove", "pi")
    assert json.loads(settings.read_text()) == user_settings
    assert not package.exists()
    listed = env.run([pi, "list"], timeout=60)
    assert str(package) not in listed.stdout and str(user_package) in listed.stdout

"""The real Gemini CLI, driven by the scripted model, with `funes add gemini`: it lists the funes
extension, `gemini -p` calls recall on its own and receives the seeded passage with its
provenance, the extension's AfterAgent hook indexes the turn just run, and `funes remove
gemini` leaves the user's settings as they were and the extension gone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from agent_harness import (
    AGENT_MARKS,
    AgentEnv,
    agent_sandbox,
    get_line_turn,
    hit_header,
    stub_model,
)

pytestmark = AGENT_MARKS

SEED_SESSION = "6e1a2b3c-0000-4000-8000-00000000beef"
FACT = "We moved the marmoset-lantern cache to Redis 7 because memcached evicted the auth tokens."
QUESTION = "why did the marmoset-lantern cache move to Redis"
TURN_MARKER = "bladderwort3318"

# The user's own settings, as the kit writes them (auth by API key, no folder-trust prompt).
USER_SETTINGS = """{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
"""


def write_gemini_session(gemini: Path, project: str, session_id: str) -> Path:
    """A finished Gemini CLI session where Gemini CLI keeps it, in its own JSONL layout."""
    folder = gemini / "tmp" / Path(project).name
    (folder / "chats").mkdir(parents=True)
    (folder / ".project_root").write_text(project)
    stamp = "2026-02-03T04:05:06.000Z"
    records = [
        {"sessionId": session_id, "projectHash": "f" * 64, "startTime": stamp, "kind": "main"},
        {"id": "u-1", "timestamp": stamp, "type": "user", "content": [{"text": QUESTION + "?"}]},
        {"$set": {"lastUpdated": stamp}},
        {"id": "g-1", "timestamp": stamp, "type": "gemini", "content": FACT, "model": "m"},
    ]
    path = folder / "chats" / f"session-2026-02-03T04-05-{session_id[:8]}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _gemini_env(env: AgentEnv, base_url: str) -> dict[str, str]:
    return env.env | {
        "GEMINI_API_KEY": "dummy",
        "GOOGLE_GEMINI_BASE_URL": base_url,
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }


def test_gemini_recalls_through_the_extension_and_indexes_its_turn(tmp_path: Path) -> None:
    gemini, env = agent_sandbox(tmp_path, "gemini", GEMINI_CLI_NO_RELAUNCH="true")
    settings = env.user_file(".gemini/settings.json", USER_SETTINGS)
    dot_gemini = settings.parent
    seed = write_gemini_session(dot_gemini, "/home/dev/aviary", SEED_SESSION)

    # `add` indexes the existing Gemini history, then links the extension.
    added = env.add("gemini")
    assert added["indexed"]["turns"] == 2
    extension = env.funes_home / "integrations" / "gemini"
    assert str(dot_gemini / "policies" / "funes.toml") in added["changed"]

    # (1) Gemini CLI lists the extension, linked in place, with its skill, context and hooks.
    listed = env.run([gemini, "extensions", "list", "-o", "json"], stdin=subprocess.DEVNULL)
    said = listed.stdout + listed.stderr
    (entry,) = json.loads(said[said.index("[") :])
    assert entry["installMetadata"] == {"source": str(extension), "type": "link"}
    assert entry["isActive"] and [skill["name"] for skill in entry["skills"]] == ["recall"]
    assert entry["contextFiles"] == [str(extension / "FUNES.md")]
    assert set(entry["hooks"]) == {"AfterAgent", "SessionEnd"}

    # (2) A scripted turn: the model calls mcp_funes_recall; Gemini runs it through funes mcp.
    with stub_model(tmp_path / "stub", tool_re="recall", tool_args={"query": QUESTION}) as stub:
        turn = env.run(
            [gemini, "-m", "gemini-2.5-flash", "-p", f"Why Redis? ({TURN_MARKER})"],
            env=_gemini_env(env, stub.base_url),
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        assert turn.returncode == 0, turn.stderr[-2000:]
        passage = stub.passage("marmoset-lantern")
        # The context file that says when to recall reached the model.
        assert "funes: memory of past agent sessions" in json.dumps(stub.requests()[0])
    assert "memcached evicted the auth tokens" in passage
    header = hit_header(passage, SEED_SESSION)
    assert header.endswith(" gemini ~/aviary")
    # Provenance: the place's get line leads to the exact seeded turn.
    assert get_line_turn(env, passage, SEED_SESSION, "memcached evicted the auth tokens") == "g-1"

    # (3) The AfterAgent hook queued the new session; the detached worker indexed it.
    (new,) = [p for p in dot_gemini.glob("tmp/*/chats/session-*.jsonl") if p != seed]
    new_session = json.loads(new.read_text().splitlines()[0])["sessionId"]
    options = ("--json", "--harness", "gemini")
    found = env.recall_once_indexed(TURN_MARKER, *options, naming=new_session)
    assert TURN_MARKER in found
    assert "gemini AfterAgent" in env.worker_log()

    # (4) doctor asks Gemini CLI, starts the server as configured, and sees the hook fire;
    # status reads the extension back.
    ours = env.doctor_checks("gemini", "--deep")
    assert set(ours) == {"gemini: files", "gemini: loaded", "gemini: mcp server", "gemini: hook"}
    assert all(check["ok"] for check in ours.values()), ours
    assert "Gemini CLI loads the funes extension" in ours["gemini: loaded"]["detail"]
    assert "last fired" in ours["gemini: hook"]["detail"]
    status = json.loads(env.funes_ok("status", "--json").stdout)
    assert status["wired_agents"]["gemini"]["config"]["installed"] is True
    assert status["agents"]["gemini"]["sessions"] == 2  # the seeded one and the one just run

    # (5) Remove: the extension and the policy are gone, the user's settings untouched.
    env.funes_ok("remove", "gemini")
    assert settings.read_text() == USER_SETTINGS
    assert not (dot_gemini / "policies" / "funes.toml").exists()
    assert not extension.exists() and not (dot_gemini / "extensions" / "funes").exists()
    listed = env.run([gemini, "extensions", "list"], stdin=subprocess.DEVNULL)
    assert "funes" not in listed.stdout

"""The real Qwen Code, driven by the scripted model, with `funes add qwen`: it lists and connects
the funes MCP server, `qwen -p` calls recall on its own (through its `tool_call` bridge) and
receives the seeded passage with its provenance, the Stop hook indexes the turn just run, and
`funes remove qwen` gives the user's settings back byte for byte."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from agent_harness import AGENT_MARKS, agent_sandbox, hit_header, run_get_line, stub_model

pytestmark = AGENT_MARKS

SEED_SESSION = "9a7e0000-1111-4222-8333-444455556666"
FACT = "The ocelot-ledger export runs at 02:40 UTC because the warehouse locks tables at 03:00."
QUESTION = "when does the ocelot-ledger export run"
TURN_MARKER = "spleenwort6120"

# The user's own settings as Qwen Code leaves them (it adds `$version` and lays out what it
# migrates when it first starts): the provider, one-line objects, a hook of their own.
USER_SETTINGS = """{
  "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
  "model": {"name": "stub-model"},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "disableAutoUpdate": true},
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "true"
          }
        ]
      }
    ]
  },
  "$version": 4
}
"""


def write_qwen_session(qwen: Path, cwd: str, session_id: str) -> Path:
    """A finished Qwen Code session where Qwen Code keeps it, in its own record layout."""
    path = qwen / "projects" / cwd.replace("/", "-") / "chats" / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True)
    base = {"sessionId": session_id, "cwd": cwd, "version": "0.24.4"}
    records = [
        base
        | {"uuid": "q-user-1", "parentUuid": None, "type": "user"}
        | {"timestamp": "2026-02-05T08:00:00.000Z", "provenance": "real_user"}
        | {"message": {"role": "user", "parts": [{"text": QUESTION + "?"}]}},
        base
        | {"uuid": "q-asst-1", "parentUuid": "q-user-1", "type": "assistant"}
        | {"timestamp": "2026-02-05T08:00:05.000Z", "provenance": "assistant_output"}
        | {"message": {"role": "model", "parts": [{"text": FACT}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_qwen_recalls_through_mcp_and_indexes_its_turn(tmp_path: Path) -> None:
    qwen, env = agent_sandbox(tmp_path, "qwen", QWEN_CODE_NO_RELAUNCH="true")
    settings = env.user_file(".qwen/settings.json", USER_SETTINGS)
    dot_qwen = settings.parent
    seed = write_qwen_session(dot_qwen, "/home/dev/ledger", SEED_SESSION)

    added = env.add("qwen")
    assert added["indexed"]["turns"] == 2
    assert str(settings) in added["changed"]

    with stub_model(tmp_path / "stub", tool_re="recall", tool_args={"query": QUESTION}) as stub:
        run_env = env.env | {
            "OPENAI_API_KEY": "dummy",
            "OPENAI_BASE_URL": f"{stub.base_url}/v1",
            "OPENAI_MODEL": "stub-model",
        }
        # (1) Qwen Code lists the server and connects to it (it starts `funes mcp`).
        listed = env.run([qwen, "mcp", "list"], env=run_env, stdin=subprocess.DEVNULL)
        assert "funes: " in listed.stdout and "Connected" in listed.stdout, listed.stdout

        # (2) A scripted turn: the model reaches mcp__funes__recall through `tool_call`.
        turn = env.run(
            [qwen, "-p", f"When does the export run? ({TURN_MARKER})"],
            env=run_env,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        assert turn.returncode == 0, turn.stderr[-2000:]
        passage = stub.passage("ocelot-ledger")
        # The skill that says when to recall is offered to the model.
        assert "funes-recall" in json.dumps(stub.requests()[0])
    assert "02:40 UTC" in passage
    assert " qwen " in hit_header(passage, SEED_SESSION)
    assert f"session {SEED_SESSION}," in run_get_line(env, passage, SEED_SESSION)

    # (3) The Stop hook queued the new session; the detached worker indexed it, with the
    # recall call named after the MCP tool it reached.
    (new,) = [p for p in dot_qwen.glob("projects/*/chats/*.jsonl") if p != seed]
    options = ("--json", "--harness", "qwen")
    found = json.loads(env.recall_once_indexed(TURN_MARKER, *options, naming=new.stem))
    assert any(TURN_MARKER in hit["text"] for hit in found["hits"])
    assert "qwen Stop" in env.worker_log()
    calls = env.funes_ok("recall", "--json", "--harness", "qwen", "--type", "tool_use", QUESTION)
    assert "mcp__funes__recall" in {hit["tool_name"] for hit in json.loads(calls.stdout)["hits"]}

    # (4) doctor asks Qwen Code, starts the server as configured, sees the hook fire.
    ours = env.doctor_checks("qwen", "--deep")
    assert set(ours) == {"qwen: files", "qwen: loaded", "qwen: mcp server", "qwen: hook"}
    assert all(check["ok"] for check in ours.values()), ours
    assert "connected" in ours["qwen: loaded"]["detail"]

    # (5) Remove: the user's settings come back byte for byte, the skill is gone.
    env.funes_ok("remove", "qwen")
    assert settings.read_text() == USER_SETTINGS
    assert not (dot_qwen / "skills" / "funes-recall").exists()

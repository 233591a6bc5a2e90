"""`funes resume --prompt` starts the real Claude Code and Codex on a session of the shared
corpus, driven by the scripted model: the agent reopens that very session (its earlier turns go
to the model, the new turn is appended to the same transcript), from the recorded folder.

A corpus session's folder does not exist on this machine, so each test puts the transcript
where its agent keeps it with the recorded folder moved into the sandbox."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_harness import AGENT_MARKS, StubModel, agent_sandbox, stub_model
from conftest import CORPUS

pytestmark = AGENT_MARKS

MARKER = "zebra4411"
CLAUDE_SESSION = "5ed31c36-bca8-40fd-8d24-f1a1f0af7901"
CLAUDE_SOURCE = (
    CORPUS
    / "claude/daaain__claude-code-log__real_projects/-Users-dain-workspace-danieldemmel-me-next"
    / f"{CLAUDE_SESSION}.jsonl"
)
CLAUDE_WORKDIR = "/Users/dain/workspace/danieldemmel.me-next"
CODEX_SESSION = "019ef2fb-6574-7f83-bd99-9118713271f2"
CODEX_SOURCE = CORPUS / "funes-fixtures/codex_session.jsonl"


def _bodies(stub: StubModel) -> str:
    return "\n".join(json.dumps(r.get("body")) for r in stub.requests())


def test_resume_reopens_a_claude_code_corpus_session(tmp_path: Path) -> None:
    _, sandbox = agent_sandbox(tmp_path, "claude", ENABLE_TOOL_SEARCH="false")
    workdir = sandbox.home / "workspace" / "danieldemmel.me-next"
    workdir.mkdir(parents=True)
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(workdir))  # Claude Code's folder for a project
    transcript = sandbox.home / ".claude" / "projects" / slug / f"{CLAUDE_SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(CLAUDE_SOURCE.read_text().replace(CLAUDE_WORKDIR, str(workdir)))
    before = len(transcript.read_text().splitlines())
    sandbox.funes_ok("index", str(transcript))

    printed = sandbox.funes_ok("resume", CLAUDE_SESSION[:8], "--print").stdout
    assert printed == f"cd {workdir} && claude --resume {CLAUDE_SESSION}\n"
    with stub_model(tmp_path / "stub") as stub:
        env = {**sandbox.env, "ANTHROPIC_BASE_URL": stub.base_url, "ANTHROPIC_API_KEY": "dummy"}
        done = sandbox.funes("resume", CLAUDE_SESSION[:8], "--prompt", MARKER, env=env, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        sent = _bodies(stub)
        assert stub.requests()[-1]["headers"].get("X-Claude-Code-Session-Id") == CLAUDE_SESSION
    assert MARKER in sent and "the-leftist-case" in sent  # the old turns went to the model
    after = transcript.read_text()
    assert MARKER in after and len(after.splitlines()) > before  # the same session grew
    assert f'"cwd": "{workdir}"' in after or f'"cwd":"{workdir}"' in after


def test_resume_reopens_a_codex_corpus_session(tmp_path: Path) -> None:
    _, sandbox = agent_sandbox(tmp_path, "codex")
    codex_home = sandbox.home / ".codex"
    sandbox.env["CODEX_HOME"] = str(codex_home)
    workdir = sandbox.home / "workspace"
    workdir.mkdir(parents=True)
    name = f"rollout-2026-06-23T05-37-02-{CODEX_SESSION}.jsonl"
    rollout = codex_home / "sessions/2026/06/23" / name
    rollout.parent.mkdir(parents=True)
    rollout.write_text(CODEX_SOURCE.read_text().replace('"/workspace', f'"{workdir}'))
    before = len(rollout.read_text().splitlines())
    sandbox.funes_ok("index", str(rollout))

    with stub_model(tmp_path / "stub") as stub:
        # The session was recorded with Codex's built-in `openai` provider, which a resume
        # must keep: point that provider at the scripted model.
        (codex_home / "config.toml").write_text(
            f'model = "stub-model"\nopenai_base_url = "{stub.base_url}/v1"\n'
        )
        env = {**sandbox.env, "OPENAI_API_KEY": "dummy"}
        done = sandbox.funes("resume", CODEX_SESSION[:8], "--prompt", MARKER, env=env, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        sent = _bodies(stub)
    assert MARKER in sent and "portfolio website" in sent  # the old turns went to the model
    after = rollout.read_text()
    assert MARKER in after and len(after.splitlines()) > before  # the same rollout grew

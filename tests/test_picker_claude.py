"""The picker resumes with the real agent: in tmux, `funes sessions` finds a Claude Code session
of the corpus by a word said deep inside it, Enter reopens it in Claude Code (against the
scripted model), and the message typed there joins that very session."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from agent_harness import AGENT_MARKS, agent_sandbox, stub_model
from conftest import CORPUS

pytestmark = AGENT_MARKS

SESSION = "5ed31c36-bca8-40fd-8d24-f1a1f0af7901"
SOURCE = (
    CORPUS
    / "claude/daaain__claude-code-log__real_projects/-Users-dain-workspace-danieldemmel-me-next"
    / f"{SESSION}.jsonl"
)
WORKDIR = "/Users/dain/workspace/danieldemmel.me-next"
MARKER = "okapi7719"


def _screen(socket: str) -> str:
    return subprocess.run(
        ["tmux", "-S", socket, "capture-pane", "-p", "-t", "pick"], capture_output=True, text=True
    ).stdout


def _wait(socket: str, pattern: str, timeout: float = 90) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(socket)
        if re.search(pattern, screen):
            return screen
        time.sleep(0.3)
    raise AssertionError(f"{pattern!r} never appeared:\n{screen}")


def test_enter_in_the_picker_resumes_the_session_in_claude_code(tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    _, sandbox = agent_sandbox(tmp_path, "claude", ENABLE_TOOL_SEARCH="false")
    workdir = sandbox.home / "workspace" / "danieldemmel.me-next"
    workdir.mkdir(parents=True)
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(workdir))
    transcript = sandbox.home / ".claude" / "projects" / slug / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(SOURCE.read_text().replace(WORKDIR, str(workdir)))
    # Claude Code's first-run questions, answered: onboarding done, the folder trusted, the
    # key in the environment approved.
    (sandbox.home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "projects": {str(workdir): {"hasTrustDialogAccepted": True}},
                "customApiKeyResponses": {"approved": ["dummy"], "rejected": []},
            }
        )
    )
    sandbox.funes_ok("index", str(transcript))
    socket = str(tmp_path / f"t{uuid.uuid4().hex[:6]}")
    with stub_model(tmp_path / "stub") as stub:
        env = {**sandbox.env, "ANTHROPIC_BASE_URL": stub.base_url, "ANTHROPIC_API_KEY": "dummy"}
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        env["TERM"] = "xterm-256color"
        command = f"cd {sandbox.project} && funes sessions; echo picker-exited-$?; sleep 120"
        subprocess.run(
            ["tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", "pick",
             "-x", "160", "-y", "45", command],
            env=env,
            check=True,
        )  # fmt: skip
        try:
            _wait(socket, "Enter resume")
            # A word from deep inside the session, not its title.
            subprocess.run(["tmux", "-S", socket, "send-keys", "-t", "pick", "-l", "leftist"])
            screen = _wait(socket, r"\[\d+×\]")
            assert SESSION[:8] in screen
            subprocess.run(["tmux", "-S", socket, "send-keys", "-t", "pick", "Enter"])
            # Claude Code opens on the session: type into it.
            _wait(socket, r"(?i)(>|\? for shortcuts|try \")", timeout=120)
            time.sleep(2)
            subprocess.run(["tmux", "-S", socket, "send-keys", "-t", "pick", "-l", MARKER])
            time.sleep(1)
            subprocess.run(["tmux", "-S", socket, "send-keys", "-t", "pick", "Enter"])
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not any(
                MARKER in json.dumps(r.get("body")) for r in stub.requests()
            ):
                time.sleep(0.5)
            sent = [r for r in stub.requests() if MARKER in json.dumps(r.get("body"))]
            assert sent, _screen(socket)
            assert sent[-1]["headers"].get("X-Claude-Code-Session-Id") == SESSION
            assert "the-leftist-case" in json.dumps(sent[-1]["body"])  # the old turns went too
            assert MARKER in transcript.read_text()  # the same session grew
        finally:
            subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True)

"""A Hub that accepts a connection and never answers must not hang recall: every request is
bounded, the memories that can answer do, and a note says which did not. The loopback Hub
(`hub_server.py`, driven by the real huggingface_hub client) is told to go silent."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from sync_fixtures import SESSIONS_A, SESSIONS_B, add_sessions, child_env, use_home

pytest_plugins = ("sync_fixtures",)  # the `hub` fixture

REPO = "alice/team-memory"
FUNES = [sys.executable, "-m", "funes.cli"]
# A recall that waits longer than this waited on the Hub (the check gives up after 5 s).
PATIENCE_S = 45


def _recall(query: str, cwd: Path, env: dict[str, str], *extra: str) -> tuple[str, float]:
    started = time.monotonic()
    done = subprocess.run(
        [*FUNES, "recall", query, *extra],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=PATIENCE_S,  # on a hanging recall: TimeoutExpired, the test fails
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, time.monotonic() - started


def test_a_declared_hub_memory_that_never_answers_leaves_the_local_memory_answering(
    hub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = use_home(monkeypatch, tmp_path / "home")
    add_sessions(SESSIONS_A)  # this machine's memory
    checkout = tmp_path / "shop"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "funes.toml").write_text(f'memory = "{REPO}"\n')
    hub.create_repo(REPO)
    hub.go_silent()

    out, _ = _recall("why did we drop the redis cache", checkout, child_env(hub, home))
    assert "redis cache" in out  # the local memory answered
    assert f"memory {REPO} skipped" in out and "did not answer within 5 s" in out, out
    assert any(path.endswith(f"{REPO}/refs") for _, path in hub.requests)  # it was asked


def test_a_hub_that_stops_answering_leaves_its_copy_answering(
    hub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from funes.sync.push import push

    use_home(monkeypatch, tmp_path / "writer")
    add_sessions(SESSIONS_B)
    push(REPO, yes=True)
    reader = use_home(monkeypatch, tmp_path / "reader")
    env = child_env(hub, reader, FUNES_REMOTE_CHECK_S="0")
    online, _ = _recall("deploy bucket trailing slash", tmp_path, env, "--memory", REPO)
    assert "staging bucket" in online

    hub.go_silent()
    out, _ = _recall("deploy bucket trailing slash", tmp_path, env, "--memory", REPO)
    assert "staging bucket" in out
    assert "unreachable (the Hub did not answer within 5 s" in out and "copy cached here" in out

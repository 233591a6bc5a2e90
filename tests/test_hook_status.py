"""`funes add` from a script (no terminal, no memory named) wires an agent without asking, and
`funes status` then tells the user which agents are wired and whether their hooks have fired."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

FUNES = str(Path(sys.executable).with_name("funes"))


def _funes(*args: str, env: dict[str, str], stdin: str | None = None) -> str:
    result = subprocess.run(
        [FUNES, *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _agent_lines(status: str) -> list[str]:
    return [line for line in status.splitlines() if line.startswith("agent ")]


def test_add_without_a_terminal_then_status_shows_wiring_and_hook_firings(
    tmp_path: Path, tmp_funes_home: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "FUNES_HOME": str(tmp_funes_home)}
    env.pop("CODEX_HOME", None)

    added = _funes("add", "codex", env=env)  # default budget: would prompt on a terminal
    assert "funes is wired into codex (memory: local)" in added
    assert "no codex history found" in added
    assert str(home / ".codex" / "config.toml") in added

    [line] = _agent_lines(_funes("status", env=env))
    assert line.startswith("agent codex: wired, memory local, hook not fired yet")
    assert "not trusted" in line  # the Stop hook waits for the user's trust; status says so

    # A turn ends while a worker is busy elsewhere: the firing is stamped and stays queued.
    queue = tmp_funes_home / "queue"
    queue.mkdir(exist_ok=True)
    with open(queue / ".worker.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        notify = json.dumps({"type": "agent-turn-complete", "thread-id": "t-1"})
        _funes("hook", "codex", notify, env=env)
        [line] = _agent_lines(_funes("status", env=env))
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert "hook last fired 20" in line and "1 turn(s) queued" in line

    _funes("remove", "codex", env=env)
    assert _agent_lines(_funes("status", env=env)) == []

"""A memory bound to a Hub dataset is published by the hook worker at a session boundary."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from agent_harness import write_claude_transcript
from sync_fixtures import child_env, hub, remote_ids  # noqa: F401  (pytest fixture)

from funes.installers.base import InstallReport
from funes.integrations import agents

REPO = "alice/memory"


def test_session_end_publishes_the_bound_memory_in_the_background(
    hub,  # noqa: F811
    tmp_path: Path,
    tmp_funes_home: Path,
) -> None:
    hub.create_repo(REPO)
    agents.record_install("claude", InstallReport(agent="claude"), REPO)
    claude_dir = tmp_path / "claude"
    transcript = write_claude_transcript(
        claude_dir,
        tmp_path / "proj",
        "sess-publish",
        [("which port does the staging proxy use", "It listens on 8443 behind the firewall.")],
    )
    payload = {
        "session_id": "sess-publish",
        "transcript_path": str(transcript),
        "hook_event_name": "SessionEnd",
        "cwd": str(tmp_path / "proj"),
    }
    env = child_env(hub, tmp_funes_home, CLAUDE_CONFIG_DIR=str(claude_dir))
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "funes.integrations.hook", "claude"],
        input=json.dumps(payload),
        text=True,
        env=env,
        check=True,
        timeout=30,
    )
    assert time.monotonic() - started < 5  # the hook itself never waits for the push
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not remote_ids(hub, REPO):
        time.sleep(0.5)
    ids = remote_ids(hub, REPO)
    assert ids, (tmp_funes_home / "logs").glob("*")
    from funes.index.store import ChunkStore

    assert set(ids) == set(ChunkStore.open().scan(["id"]).column("id").to_pylist())

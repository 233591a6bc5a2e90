"""`funes add <agent> MEMORY --read-only`: the agent reads that memory beside its own, and its
turns are never written or pushed there."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sync_fixtures import SESSIONS_A, SESSIONS_B, add_sessions

from funes.integrations import agents

FUNES = [sys.executable, "-m", "funes.cli"]
FUNES_BIN = str(Path(sys.executable).with_name("funes"))


def _add(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*FUNES, "add", "hermes", *args, "--budget", "0", "--json"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "FUNES_BIN": FUNES_BIN},
    )


def _hermes_plugin():  # type: ignore[no-untyped-def]
    folder = Path(os.environ["HERMES_HOME"]) / "plugins" / "funes"
    spec = importlib.util.spec_from_file_location("funes_hermes_plugin", folder / "__init__.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_read_only_memory_is_read_beside_the_agents_own(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")
    monkeypatch.chdir(tmp_path)
    team = tmp_path / "team-memory"
    add_sessions(SESSIONS_A)  # the local memory: the agent's own turns
    add_sessions(SESSIONS_B, team)

    added = _add(str(team), "--read-only")
    assert added.returncode == 0, added.stderr
    result = json.loads(added.stdout)
    assert result["memory"] == "local" and result["reads"] == [str(team)]
    assert any("read-only" in note for note in result["notes"])
    # The binding (where turns go, what is pushed) is unchanged; the agent reads both.
    assert agents.bound_memory("hermes") is None
    assert agents.read_only_memories("hermes") == [str(team)]
    saved = json.loads(
        (Path(os.environ["HERMES_HOME"]) / "plugins" / "funes" / "funes.json").read_text()
    )
    assert saved["memory"] == f"local,{team}"

    plugin = _hermes_plugin()
    monkeypatch.setenv("FUNES_BIN", FUNES_BIN)
    answer = plugin.recall({"query": "deploy bucket trailing slash redis cache"})
    assert "== sess-dep " in answer and "== sess-red " in answer
    assert f"--memory {team}" in answer

    # Adding it again lists it once; --read-only with no memory is a one-line error.
    again = json.loads(_add(str(team), "--read-only").stdout)
    assert again["reads"] == [str(team)]
    bare = _add("--read-only")
    assert bare.returncode != 0 and "--read-only needs" in bare.stderr


@pytest.mark.usefixtures("tmp_funes_home")
def test_hooks_never_push_to_a_read_only_memory() -> None:
    from funes.integrations.hook_worker import _publish_bound_memories

    class _Report:
        changed: list[Path] = []  # noqa: RUF012
        notes: list[str] = []  # noqa: RUF012

    agents.record_install("claude", _Report(), None, ["acme/team-memory"])
    _publish_bound_memories([(Path("x"), {"agent": "claude", "catch_up": True})])
    assert not (Path(os.environ["FUNES_HOME"]) / "logs" / "push.log").exists()

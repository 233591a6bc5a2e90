"""`funes doctor`: each thing that can be wrong is found, says what to do, and the safe ones are
repaired by `--fix`. Broken states are made for real (a dropped index, a held lock, a stuck
queue, a disabled plugin in the real agent CLIs, an unreachable loopback Hub)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from agent_harness import make_agent_env, require_agent, wait_for_hook_worker
from click.testing import CliRunner
from sync_fixtures import SESSIONS_A, SESSIONS_B, add_sessions, hub  # noqa: F401  (fixture)
from trust_fixtures import writer_lock_held_elsewhere

from funes.cli import main
from funes.index.indexer import index
from funes.index.lock import lock_path
from funes.index.store import ChunkStore
from funes.inspect import checks_agents, checks_local, checks_remote
from funes.inspect.doctor import run_checks
from funes.inspect.syncview import sync_views
from funes.installers.base import InstallReport
from funes.integrations.agents import record_hook_fired, record_install, state_path, wired_agents
from funes.paths import funes_home, pi_agent_dir


def by_name(checks: list) -> dict:
    return {c.name: c for c in checks}


def doctor_json(*args: str) -> tuple[int, dict]:
    out = CliRunner().invoke(main, ["doctor", "--json", *args])
    return out.exit_code, json.loads(out.output)


def test_a_healthy_memory_passes_every_check_and_exits_0(corpus: Path) -> None:
    index([corpus / "funes-fixtures"])
    code, data = doctor_json()
    assert code == 0 and data["ok"] is True, data
    names = [c["name"] for c in data["checks"]]
    for expected in ("memory", "full-text index", "vector index", "disk", "writer lock"):
        assert expected in names
    assert all(set(c) == {"name", "ok", "status", "detail", "fix"} for c in data["checks"])
    human = CliRunner().invoke(main, ["doctor"])
    assert human.exit_code == 0 and human.output.splitlines()[-1].startswith("all ")


def test_no_memory_fails_with_what_to_do() -> None:
    code, data = doctor_json()
    assert code == 1 and data["ok"] is False
    memory = by_name_json(data)["memory"]
    assert not memory["ok"] and "funes add <agent>" in memory["fix"]


def by_name_json(data: dict) -> dict:
    return {c["name"]: c for c in data["checks"]}


def test_a_truncated_data_file_is_found_with_the_way_out(corpus: Path) -> None:
    index([corpus / "funes-fixtures"])
    healthy = by_name_json(doctor_json()[1])["stored data"]
    assert healthy["ok"] and "rows read back" in healthy["detail"]
    data = sorted((funes_home() / "memory" / "chunks.lance" / "data").glob("*.lance"))
    with open(data[0], "r+b") as handle:
        handle.truncate(100)  # a copy cut short, a disk that filled up mid-write
    code, report = doctor_json()
    stored = by_name_json(report)["stored data"]
    assert code == 1 and not stored["ok"]
    assert "funes index --all" in stored["fix"] and "aside" in stored["fix"]


def test_a_lost_fulltext_index_is_found_and_rebuilt_by_fix(corpus: Path) -> None:
    index([corpus / "funes-fixtures"])
    ChunkStore.open().table.drop_index("text_idx")
    assert not ChunkStore.open().has_fts_index()

    code, data = doctor_json()
    fulltext = by_name_json(data)["full-text index"]
    assert code == 1 and not fulltext["ok"] and "vector search only" in fulltext["detail"]
    assert "--fix" in fulltext["fix"]

    code, data = doctor_json("--fix")
    fulltext = by_name_json(data)["full-text index"]
    assert code == 0 and fulltext["ok"], data
    assert "full-text" in fulltext["detail"].split("; now:")[0]  # says what it did
    assert ChunkStore.open().has_fts_index()


def test_a_writer_lock_held_for_hours_names_its_holder_and_frees_when_it_exits() -> None:
    with writer_lock_held_elsewhere() as holder:
        (check,) = checks_local.lock_checks()
        assert check.ok and "a write in progress" in check.detail
        hours_ago = time.time() - 3 * 3600
        os.utime(lock_path(), (hours_ago, hours_ago))
        (check,) = checks_local.lock_checks()
        assert not check.ok and f"pid {holder.pid}" in check.detail
        assert f"kill {holder.pid}" in check.fix and check.repair is None  # never killed for you
    # The kernel dropped the lock with its holder; the file naming a dead pid is harmless.
    (check,) = checks_local.lock_checks()
    assert check.ok and check.detail == "free"


def test_a_stuck_queue_and_failed_entries_are_retried_by_fix() -> None:
    queue = funes_home() / "queue"
    (queue / "failed").mkdir(parents=True)
    stuck = queue / "1-stuck.json"
    stuck.write_text(json.dumps({"agent": "pi", "event": "agent_end"}))
    an_hour_ago = time.time() - 3600
    os.utime(stuck, (an_hour_ago, an_hour_ago))
    (queue / "failed" / "2-retry.json").write_text(json.dumps({"agent": "pi"}))
    (queue / "failed" / "3-garbled.json").write_text("{not json")

    checks = by_name(checks_local.queue_checks())
    assert not checks["hook queue"].ok and "no worker is running" in checks["hook queue"].detail
    failed = checks["failed hook entries"]
    assert not failed.ok and "pi: 1" in failed.detail and "unreadable: 1" in failed.detail

    try:
        fixed = by_name([c for c in run_checks(fix=True) if c.name in checks])
    finally:
        wait_for_hook_worker(funes_home(), timeout=120)
    assert "moved 1 entry back to the queue" in fixed["failed hook entries"].detail
    assert not (queue / "failed" / "2-retry.json").exists()
    # The garbled entry stays for a person: retrying it cannot help, and the check says so.
    assert (queue / "failed" / "3-garbled.json").exists()
    (remaining,) = checks_local.queue_checks()[1:]
    assert not remaining.ok and remaining.repair is None and "rm " in remaining.fix
    assert not list(queue.glob("*.json"))  # the worker drained the retried entries


def _wire(agent: str, memory: str | None = None, installed_hours_ago: float = 0) -> None:
    record_install(agent, InstallReport(agent=agent), memory)
    if installed_hours_ago:
        data = json.loads(state_path().read_text())
        stamp = time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - installed_hours_ago * 3600)
        )
        data["agents"][agent]["installed_at"] = stamp
        state_path().write_text(json.dumps(data))


def test_a_hook_that_stopped_firing_is_found_from_the_sessions_its_agent_writes() -> None:
    _wire("pi", installed_hours_ago=3)
    record_hook_fired("pi")
    fired = funes_home() / "hooks" / "pi.fired"
    two_hours_ago = time.time() - 2 * 3600
    os.utime(fired, (two_hours_ago, two_hours_ago))
    transcript = pi_agent_dir() / "sessions" / "--proj--" / "2026-01-01_s.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text('{"type": "session"}\n')

    check = checks_agents.hook_check("pi", wired_agents()["pi"])
    assert not check.ok and "pi wrote a session at" in check.detail
    assert "new turns are not indexed" in check.detail and "funes index" in check.fix

    record_hook_fired("pi")  # the hook fires again after that session: all is well
    check = checks_agents.hook_check("pi", wired_agents()["pi"])
    assert check.ok and "last fired" in check.detail


@pytest.mark.agents
@pytest.mark.slow
def test_the_real_agent_clis_are_asked_whether_they_load_funes(tmp_path: Path) -> None:
    binaries = {agent: require_agent(agent) for agent in ("claude", "codex", "pi", "hermes")}
    # The funes command baked into the agents' configs: a copy, so the test can remove it.
    funes_copy = tmp_path / "bin" / "funes"
    funes_copy.parent.mkdir()
    funes_copy.write_bytes(Path(sys.executable).with_name("funes").read_bytes())
    funes_copy.chmod(0o755)
    sandbox = make_agent_env(tmp_path / "sandbox", FUNES_BIN=str(funes_copy))
    sandbox.env["PATH"] = os.pathsep.join(
        [*(str(b.parent) for b in binaries.values()), sandbox.env["PATH"]]
    )
    for agent in binaries:
        added = sandbox.funes("add", agent, "--budget", "0", "--json")
        assert added.returncode == 0, added.stderr

    def checks(*extra: str) -> tuple[int, dict]:
        run = sandbox.funes("doctor", "--json", *extra, timeout=300)
        return run.returncode, by_name_json(json.loads(run.stdout))

    _, found = checks()
    for agent in binaries:
        assert found[f"{agent}: files"]["ok"], found[f"{agent}: files"]
        assert found[f"{agent}: loaded"]["ok"], found[f"{agent}: loaded"]
        # Nothing has run a turn yet: the hook is not known to work, which is not a pass.
        hook = found[f"{agent}: hook"]
        assert hook["status"] == "warn" and "never fired" in hook["detail"], hook
    assert "Claude Code loads funes@funes" in found["claude: loaded"]["detail"]
    assert "Hermes lists the funes plugin, enabled" in found["hermes: loaded"]["detail"]

    # Break it the ways users do: a plugin disabled in the agent, funes moved away.
    assert sandbox.run([binaries["claude"], "plugin", "disable", "funes@funes"]).returncode == 0
    assert sandbox.run([binaries["hermes"], "plugins", "disable", "funes"]).returncode == 0
    funes_copy.unlink()
    code, found = checks()
    assert code == 1
    assert not found["claude: loaded"]["ok"] and "disabled" in found["claude: loaded"]["detail"]
    assert not found["hermes: loaded"]["ok"] and "disabled" in found["hermes: loaded"]["detail"]
    codex = found["codex: loaded"]
    assert not codex["ok"] and f"{funes_copy}, which no longer exists" in codex["detail"]
    assert found["claude: loaded"]["fix"].startswith(
        "enable it: `claude plugin enable funes@funes`"
    )
    assert "hermes plugins enable funes" in found["hermes: loaded"]["fix"]
    assert codex["fix"].startswith("run `funes add codex` again")
    assert found["pi: loaded"]["ok"]

    # The fixes the checks name work: enable both plugins, put funes back.
    assert sandbox.run([binaries["claude"], "plugin", "enable", "funes@funes"]).returncode == 0
    assert sandbox.run([binaries["hermes"], "plugins", "enable", "funes"]).returncode == 0
    funes_copy.write_bytes(Path(sys.executable).with_name("funes").read_bytes())
    funes_copy.chmod(0o755)
    code, found = checks()
    assert all(
        found[f"{agent}: {what}"]["ok"] for agent in binaries for what in ("files", "loaded")
    )

    # A funes that is on disk but cannot start passes the plain check; --deep starts the MCP
    # server each agent is configured to run, as the agent would.
    funes_copy.write_text("#!/bin/sh\necho 'funes: broken install' >&2\nexit 3\n")
    code, found = checks("--deep")
    assert code == 1 and found["claude: loaded"]["ok"] and found["codex: loaded"]["ok"]
    for agent in ("claude", "codex"):
        served = found[f"{agent}: mcp server"]
        assert not served["ok"] and "does not start an MCP server" in served["detail"]
        assert "(funes: broken install)" in served["detail"]  # what it said on stderr
        assert f"run `{funes_copy} mcp` in a terminal" in served["fix"]
    assert "pi: mcp server" not in found  # pi and Hermes run funes as a command, not over MCP


def test_a_bound_hub_memory_is_checked_for_reach_and_what_is_not_pushed(
    hub,  # noqa: F811
) -> None:
    from funes.sync.push import push

    add_sessions(SESSIONS_A)
    push("alice/team", yes=True)
    _wire("claude", memory="alice/team")
    _wire("codex", memory="alice/missing")

    checks = by_name(checks_remote.remote_checks())
    team = checks["remote hf://datasets/alice/team"]
    assert team.ok and "reachable" in team.detail and "bound by claude" in team.detail
    missing = checks["remote hf://datasets/alice/missing"]
    assert not missing.ok and "funes push alice/missing --yes" in missing.fix

    added = add_sessions(SESSIONS_B)
    (view,) = [v for v in sync_views() if v.spec == "alice/team"]
    assert view.cached and view.local_only == added > 0
    assert view.remote_chunks == view.local_chunks - added
    team = by_name(checks_remote.remote_checks())["remote hf://datasets/alice/team"]
    assert f"{added} local chunk(s) not on it" in team.detail

    hub.stop()
    team = by_name(checks_remote.remote_checks())["remote hf://datasets/alice/team"]
    assert not team.ok and "unreachable" in team.detail and "cached copy" in team.detail


def test_piled_up_versions_are_dropped_by_fix() -> None:
    from recall_fixtures import build_memory, turn

    from funes.index.chunking import chunk_turn
    from funes.index.embed import load_embedder
    from funes.inspect.storage import VERSIONS_WARN

    build_memory([turn("s-base", "b0", 0, "the first turn")])
    store, embedder = ChunkStore.open(), load_embedder()
    for seq in range(1, VERSIONS_WARN + 5):  # one append per hook drain: a version each
        chunks = chunk_turn(turn("s-base", f"b{seq}", seq, f"turn number {seq}"))
        store.add(chunks, embedder.encode([c.text for c in chunks]))
    assert len(store.table.list_versions()) > VERSIONS_WARN

    disk = by_name(checks_local.memory_checks())["disk"]
    assert not disk.ok and disk.repair is not None and "versions" in disk.detail
    fixed = by_name([c for c in run_checks(fix=True) if c.name == "disk"])["disk"]
    assert fixed.ok, fixed.detail
    assert len(ChunkStore.open().table.list_versions()) < VERSIONS_WARN
    assert ChunkStore.open().count() == VERSIONS_WARN + 5  # nothing lost

"""The agents delete their own transcripts; funes still recalls, shows and continues them
(issue 34), proven with the real programs and the scripted model:

- Claude Code deletes transcripts not changed for `cleanupPeriodDays` (default 30) in its
  start-up housekeeping, which it also runs in `claude -p` once the process lives 5 s (the run
  here waits on a scripted `sleep`). A session is indexed, aged past 30 days, and the real
  `claude` deletes it itself; then `funes recall`, `show` and `resume` (the real `claude` again,
  the catch-up as its first prompt) work on it.
- With `funes add claude --keep-transcripts` the same aged transcript survives Claude Code's
  sweep, and `funes remove claude` gives settings.json back byte for byte after Claude Code's
  own plugin commands rewrote it.
- Hermes prunes ended sessions started more than `sessions.retention_days` ago out of state.db
  at the start of `hermes chat` when `sessions.auto_prune` is on: the real `hermes` prunes an
  aged session, and funes continues it; `--keep-transcripts` outlives the prune.
- Gemini CLI (0.61) deletes the project's sessions last updated more than 30 days ago at every
  start, `gemini -p` too, by default: the same story, and `--keep-transcripts` outlives it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import test_agents_hermes as seeded
from agent_harness import AGENT_MARKS, AgentEnv, agent_sandbox, stub_model, write_claude_transcript
from test_agents_hermes import USER_CONFIG, seed_hermes_session

pytestmark = AGENT_MARKS

SESSION = "0ld5e551-0000-4000-8000-0000000c1a0d"
ASK = "which shard is the velvet-tapir cache pinned to"
FACT = "We pinned the velvet-tapir cache to shard 4417 because shard 9 truncates footers."
MARKER = "quillwort5521"
SLEEP = {"command": "sleep 7", "description": "wait"}  # keeps `claude -p` alive past 5 s
DAY = 86400


def _aged_claude_session(sandbox: AgentEnv, *, index: bool = True) -> tuple[Path, Path]:
    """A Claude Code session in ~/.claude/projects last changed 40 days ago, indexed by funes
    unless not `index`: (its folder, its transcript)."""
    workdir = sandbox.home / "old-proj"
    workdir.mkdir()
    transcript = write_claude_transcript(
        sandbox.home / ".claude", workdir, SESSION, [(ASK + "?", FACT)]
    )
    then = time.time() - 40 * DAY
    os.utime(transcript, (then, then))
    if index:
        sandbox.funes_ok("index", str(transcript))
    return workdir, transcript


def _retention_check(sandbox: AgentEnv) -> dict[str, str]:
    doctor = json.loads(sandbox.funes("doctor", "--json").stdout)
    return next(c for c in doctor["checks"] if c["name"] == "agent retention")


def _run_claude_housekeeping(sandbox: AgentEnv, claude: Path, tmp_path: Path) -> None:
    """A `claude -p` turn that lives long enough for Claude Code's start-up cleanup to run
    (it writes ~/.claude/.last-cleanup when it has)."""
    marker = sandbox.home / ".claude" / ".last-cleanup"
    marker.unlink(missing_ok=True)
    with stub_model(tmp_path / "stub-sweep", tool_re="^Bash$", tool_args=SLEEP) as stub:
        env = {**sandbox.env, "ANTHROPIC_BASE_URL": stub.base_url, "ANTHROPIC_API_KEY": "dummy"}
        ran = sandbox.run(
            [claude, "-p", "wait a moment", "--allowedTools", "Bash"], env=env, timeout=240
        )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert marker.exists(), "Claude Code's housekeeping did not run"


def test_claude_code_deletes_an_aged_session_and_funes_still_continues_it(tmp_path: Path) -> None:
    claude, sandbox = agent_sandbox(tmp_path, "claude", ENABLE_TOOL_SEARCH="false")
    workdir, transcript = _aged_claude_session(sandbox, index=False)
    check = _retention_check(sandbox)  # Claude Code deletes it at its next start: said
    assert check["status"] == "warn" and str(transcript) in check["detail"]
    assert "deleted the next time its agent starts" in check["detail"]
    sandbox.funes_ok("index")  # the fix the check names
    assert _retention_check(sandbox)["status"] == "ok"

    _run_claude_housekeeping(sandbox, claude, tmp_path)
    assert not transcript.exists()  # Claude Code deleted it itself

    recalled = sandbox.funes_ok("recall", ASK, "--json").stdout
    assert SESSION in recalled and "4417" in recalled
    shown = sandbox.funes_ok("show", SESSION[:8]).stdout
    assert FACT in shown

    printed = sandbox.funes_ok("resume", SESSION[:8], "--print")
    assert printed.stdout.startswith(f"cd {workdir} && claude 'Continue session {SESSION}.")
    said = printed.stderr
    assert f"Claude Code's own transcript {transcript} was deleted" in said
    assert "Claude Code deletes transcripts after 30 days" in said
    assert "funes continues the session from its memory" in said
    assert "shared memory" not in said

    with stub_model(tmp_path / "stub-resume") as stub:
        env = {**sandbox.env, "ANTHROPIC_BASE_URL": stub.base_url, "ANTHROPIC_API_KEY": "dummy"}
        done = sandbox.funes("resume", SESSION[:8], "--prompt", MARKER, env=env, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        sent = "\n".join(json.dumps(r.get("body")) for r in stub.requests())
    # The real Claude Code started with the catch-up (the old ask and answer) and the prompt.
    assert MARKER in sent and "velvet-tapir" in sent and "shard 4417" in sent
    assert f"Continue session {SESSION}" in sent
    new = [
        p
        for p in (sandbox.home / ".claude" / "projects").rglob("*.jsonl")
        if MARKER in p.read_text()
    ]
    assert new and f'"cwd":"{workdir}"' in new[0].read_text().replace(" ", "")


def test_keep_transcripts_outlives_claude_codes_sweep_and_remove_gives_settings_back(
    tmp_path: Path,
) -> None:
    claude, sandbox = agent_sandbox(tmp_path, "claude", ENABLE_TOOL_SEARCH="false")
    settings = sandbox.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = '{\n    "model": "opus",\n    "env": {"KEEP": "mine"}\n}'
    settings.write_text(original)
    sandbox.funes_ok("add", "claude", "--yes", "--budget", "0", "--keep-transcripts")
    assert json.loads(settings.read_text())["cleanupPeriodDays"] == 3650

    _, transcript = _aged_claude_session(sandbox)
    _run_claude_housekeeping(sandbox, claude, tmp_path)
    assert transcript.exists()  # ten years: Claude Code's sweep kept it

    sandbox.funes_ok("remove", "claude")
    assert settings.read_bytes() == original.encode()


HERMES_SESSION = "20260102_030405_01d5e5"


def _aged_hermes_session(sandbox: AgentEnv, hermes: Path) -> Path:
    """The seeded Hermes session, as if it ran 40 days ago; state.db's path."""
    state_db = seed_hermes_session(sandbox, hermes)
    then = time.time() - 40 * DAY
    with sqlite3.connect(state_db) as conn:
        conn.execute(
            "UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = ?",
            (then, then + 60, seeded.SEED_SESSION),
        )
        conn.execute(
            "UPDATE messages SET timestamp = ? WHERE session_id = ?",
            (then + 30, seeded.SEED_SESSION),
        )
    return state_db


def _hermes_holds(state_db: Path) -> bool:
    with sqlite3.connect(state_db) as conn:
        found = conn.execute("SELECT 1 FROM sessions WHERE id = ?", (seeded.SEED_SESSION,))
        return found.fetchone() is not None


PRUNE = "sessions:\n  auto_prune: true\n  retention_days: 30\n"


def test_hermes_prunes_an_aged_session_and_funes_still_continues_it(tmp_path: Path) -> None:
    hermes, sandbox = agent_sandbox(tmp_path, "hermes")
    config = sandbox.home / ".hermes" / "config.yaml"
    config.parent.mkdir(parents=True)
    with stub_model(tmp_path / "stub") as stub:
        config.write_text(USER_CONFIG.format(base_url=stub.base_url) + PRUNE)
        state_db = _aged_hermes_session(sandbox, hermes)
        sandbox.funes_ok("index", str(state_db))
        run = sandbox.run(
            [hermes, "chat", "-Q", "-q", "hello"], timeout=240, stdin=subprocess.DEVNULL
        )
        assert run.returncode == 0, run.stderr[-2000:]
    assert not _hermes_holds(state_db)  # Hermes's own prune took it out of state.db

    recalled = sandbox.funes_ok("recall", seeded.QUESTION, "--json").stdout
    assert seeded.SEED_SESSION in recalled and "02:40 UTC" in recalled
    assert "02:40 UTC" in sandbox.funes_ok("show", seeded.SEED_SESSION).stdout
    plan = json.loads(sandbox.funes_ok("resume", seeded.SEED_SESSION, "--json").stdout)
    assert plan["from_memory"].startswith(f"Hermes no longer holds it in {state_db} (pruned")
    assert "Hermes deletes transcripts after 30 days" in plan["from_memory"]
    assert plan["argv"][:3] == ["hermes", "chat", "-q"] and "02:40 UTC" in plan["argv"][3]


def test_keep_transcripts_outlives_hermes_prune_and_remove_gives_config_back(
    tmp_path: Path,
) -> None:
    hermes, sandbox = agent_sandbox(tmp_path, "hermes")
    config = sandbox.home / ".hermes" / "config.yaml"
    config.parent.mkdir(parents=True)
    with stub_model(tmp_path / "stub") as stub:
        original = USER_CONFIG.format(base_url=stub.base_url) + PRUNE
        config.write_text(original)
        sandbox.funes_ok("add", "hermes", "--yes", "--budget", "0", "--keep-transcripts")
        assert "retention_days: 3650" in config.read_text()
        state_db = _aged_hermes_session(sandbox, hermes)
        run = sandbox.run(
            [hermes, "chat", "-Q", "-q", "hello"], timeout=240, stdin=subprocess.DEVNULL
        )
        assert run.returncode == 0, run.stderr[-2000:]
    with sqlite3.connect(state_db) as conn:  # Hermes's prune ran ...
        ran = conn.execute("SELECT value FROM state_meta WHERE key = 'last_auto_prune'")
        assert ran.fetchone() is not None
    assert _hermes_holds(state_db)  # ... and, at 3650 days, kept the session
    sandbox.funes_ok("remove", "hermes")
    assert config.read_text() == original


# Gemini CLI (0.61) deletes, at every start (`gemini -p` too), the current project's sessions
# last updated more than `general.sessionRetention.maxAge` ago: on, "30d", by default.
GEMINI_SESSION = "6e1a2b3c-0000-4000-8000-00000000beef"


def _gemini_session(sandbox: AgentEnv) -> tuple[Path, Path]:
    """A Gemini CLI session of the sandbox's project, last updated 2026-02-03 (its file's time
    too, as Gemini CLI leaves it): (~/.gemini, its file)."""
    import calendar

    from test_agents_gemini import USER_SETTINGS, write_gemini_session

    dot_gemini = sandbox.home / ".gemini"
    dot_gemini.mkdir()
    (dot_gemini / "settings.json").write_text(USER_SETTINGS)
    session = write_gemini_session(dot_gemini, str(sandbox.project), GEMINI_SESSION)
    then = calendar.timegm((2026, 2, 3, 4, 5, 6, 0, 0, 0))
    os.utime(session, (then, then))
    return dot_gemini, session


def _run_gemini(sandbox: AgentEnv, gemini: Path, stub_url: str, prompt: str = "hello") -> None:
    from test_agents_gemini import _gemini_env

    ran = sandbox.run([gemini, "-p", prompt], env=_gemini_env(sandbox, stub_url), timeout=240)
    assert ran.returncode == 0, ran.stderr[-2000:]


def test_gemini_cli_deletes_an_old_session_and_funes_still_continues_it(tmp_path: Path) -> None:
    from test_agents_gemini import FACT, QUESTION, _gemini_env

    gemini, sandbox = agent_sandbox(tmp_path, "gemini", GEMINI_CLI_NO_RELAUNCH="true")
    dot_gemini, session = _gemini_session(sandbox)
    check = _retention_check(sandbox)
    assert check["status"] == "warn" and str(session) in check["detail"]
    assert "Gemini CLI deletes transcripts after 30 days" in check["detail"]
    sandbox.funes_ok("index")
    assert _retention_check(sandbox)["status"] == "ok"

    with stub_model(tmp_path / "stub") as stub:
        _run_gemini(sandbox, gemini, stub.base_url)
    assert not session.exists()  # Gemini CLI deleted it itself

    assert GEMINI_SESSION in sandbox.funes_ok("recall", QUESTION, "--json").stdout
    assert FACT in sandbox.funes_ok("show", GEMINI_SESSION[:8]).stdout
    plan = json.loads(sandbox.funes_ok("resume", GEMINI_SESSION[:8], "--json").stdout)
    assert plan["from_memory"] == (
        f"Gemini CLI's own transcript {session} was deleted: Gemini CLI deletes transcripts "
        f"after 30 days (`general.sessionRetention` in {dot_gemini / 'settings.json'}, its "
        "default)"
    )
    assert plan["argv"][:2] == ["gemini", "-i"] and FACT in plan["argv"][2]
    with stub_model(tmp_path / "stub-resume") as stub:
        env = _gemini_env(sandbox, stub.base_url)
        done = sandbox.funes("resume", GEMINI_SESSION[:8], "--prompt", MARKER, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        sent = "\n".join(json.dumps(r.get("body")) for r in stub.requests())
    assert MARKER in sent and "marmoset-lantern" in sent  # the catch-up reached the model


def test_keep_transcripts_outlives_gemini_clis_cleanup(tmp_path: Path) -> None:
    gemini, sandbox = agent_sandbox(tmp_path, "gemini", GEMINI_CLI_NO_RELAUNCH="true")
    dot_gemini, session = _gemini_session(sandbox)
    settings = dot_gemini / "settings.json"
    original = settings.read_bytes()
    sandbox.funes_ok("add", "gemini", "--yes", "--budget", "0", "--keep-transcripts")
    with stub_model(tmp_path / "stub") as stub:
        _run_gemini(sandbox, gemini, stub.base_url)
    assert session.exists()  # 3650 days: Gemini CLI's cleanup kept it
    sandbox.funes_ok("remove", "gemini")
    assert settings.read_bytes() == original

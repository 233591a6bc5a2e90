"""The agents' own retention: funes reads each agent's real setting, indexes what is about to be
deleted first, and `funes doctor` / `funes status` name what would be lost (issue 34). The real
Claude Code and Hermes deleting transcripts themselves are in test_retention_agents.py."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from agent_harness import write_claude_transcript
from click.testing import CliRunner

from funes.cli import main
from funes.index.at_risk import unindexed_at_risk
from funes.index.indexer import discover_units, index
from funes.traces.retention import claude_retention, gemini_retention, hermes_retention

DAY = 86400.0


def _claude_dir() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def _aged(tmp_path: Path, name: str, days: float, text: str = "") -> Path:
    """A Claude Code transcript last changed `days` ago."""
    session = f"{name:0<8}-0000-4000-8000-000000000000"[:36]
    path = write_claude_transcript(
        _claude_dir(), tmp_path / "proj", session, [(text or f"ask {name}", f"answer {name}")]
    )
    then = time.time() - days * DAY
    os.utime(path, (then, then))
    return path


def _settings(data: dict[str, object]) -> None:
    _claude_dir().mkdir(parents=True, exist_ok=True)
    (_claude_dir() / "settings.json").write_text(json.dumps(data))


def test_each_agents_real_setting_is_read() -> None:
    assert claude_retention().days == 30 and not claude_retention().configured
    _settings({"cleanupPeriodDays": 7, "model": "x"})
    assert claude_retention().days == 7 and claude_retention().configured
    _settings({"cleanupPeriodDays": 0})  # rejected by Claude Code, which then skips its cleanup
    assert claude_retention().days is None and "skips its cleanup" in claude_retention().problem

    gemini = Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini" / "settings.json"
    gemini.parent.mkdir(parents=True)
    # Gemini CLI 0.61's settings schema: on, "30d", unless the user says otherwise.
    assert gemini_retention().days == 30 and not gemini_retention().configured
    gemini.write_text(json.dumps({"general": {"sessionRetention": {"maxAge": "2w"}}}))
    assert gemini_retention().days == 14 and gemini_retention().configured
    gemini.write_text(json.dumps({"general": {"sessionRetention": {"enabled": False}}}))
    assert gemini_retention().days is None
    gemini.write_text(json.dumps({"general": {"sessionRetention": {"maxAge": "forever"}}}))
    assert gemini_retention().days is None and "skips its cleanup" in gemini_retention().problem

    hermes = Path(os.environ["HERMES_HOME"]) / "config.yaml"
    hermes.parent.mkdir(parents=True)
    hermes.write_text("sessions:\n  auto_prune: false\n")
    assert hermes_retention().days is None
    hermes.write_text("# mine\nsessions:\n  auto_prune: true\n")
    assert hermes_retention().days == 90  # Hermes's default retention_days
    hermes.write_text("sessions:\n  auto_prune: true\n  retention_days: 12\n")
    assert hermes_retention().days == 12


def test_what_is_about_to_be_deleted_is_read_first(tmp_path: Path) -> None:
    newest = _aged(tmp_path, "aaaa", 1)
    soon = _aged(tmp_path, "bbbb", 27)
    sooner = _aged(tmp_path, "cccc", 29.5)
    middle = _aged(tmp_path, "dddd", 10)
    order = [unit.path for unit in discover_units(harness="claude_code")]
    assert order == [sooner, soon, newest, middle]  # at risk (default 30 days) first, then newest

    _settings({"cleanupPeriodDays": 3650})  # kept ten years: nothing at risk, newest first
    order = [unit.path for unit in discover_units(harness="claude_code")]
    assert order == [newest, middle, soon, sooner]


def test_a_budgeted_run_indexes_the_transcript_closest_to_deletion(tmp_path: Path) -> None:
    _aged(tmp_path, "aaaa", 0.1)
    closest = _aged(tmp_path, "cccc", 29.9)
    # A budget spent at once: every run still reads one transcript, and it is the one Claude
    # Code deletes first.
    report = index(harness="claude_code", budget_s=1e-9)
    assert report.units_read == 1 and len(report.backlog) == 1
    assert str(closest) not in report.backlog


def test_doctor_warns_of_an_unindexed_transcript_within_three_days_of_deletion(
    tmp_path: Path,
) -> None:
    _settings({"cleanupPeriodDays": 10})
    at_risk = _aged(tmp_path, "bbbb", 8)  # deleted in 2 days
    _aged(tmp_path, "aaaa", 5)  # in 5 days: not yet
    report = unindexed_at_risk()
    assert [risk.path for risk in report.at_risk] == [str(at_risk)]

    doctor = CliRunner().invoke(main, ["doctor", "--json"])
    check = next(c for c in json.loads(doctor.output)["checks"] if c["name"] == "agent retention")
    assert check["status"] == "warn"
    assert check["detail"].startswith(
        f"1 transcript(s) their agent deletes within 3 days are not indexed whole: {at_risk} ("
    ), check["detail"]
    assert "deleted in 2.0 days" in check["detail"]
    assert "Claude Code deletes transcripts after 10 days" in check["detail"]
    assert check["fix"] == (
        "run `funes index` now (it reads these first; `funes doctor --fix` reads just these); "
        "to keep transcripts longer: `funes add claude --keep-transcripts`"
    )
    status = json.loads(CliRunner().invoke(main, ["status", "--json"]).output)
    assert status["at_risk_units"] == 1

    assert CliRunner().invoke(main, ["index"]).exit_code == 0  # the fix it names
    assert unindexed_at_risk().at_risk == []
    doctor = CliRunner().invoke(main, ["doctor", "--json"])
    check = next(c for c in json.loads(doctor.output)["checks"] if c["name"] == "agent retention")
    assert check["status"] == "ok", check
    assert "all it deletes within 3 days is indexed" in check["detail"]


def test_a_transcript_past_its_deadline_is_flagged_as_going_at_the_next_start(
    tmp_path: Path,
) -> None:
    _aged(tmp_path, "eeee", 45)  # Claude Code has not started since: it goes at its next start
    from funes.inspect.checks_retention import retention_checks

    (check,) = retention_checks()
    assert check.status == "warn" and "deleted the next time its agent starts" in check.detail


def test_hermes_sessions_near_their_prune_are_flagged_until_read(tmp_path: Path) -> None:
    """Hermes prunes ended sessions inside state.db by when they started: the sessions within
    3 days of it whose messages the memory has not read are named."""
    import sqlite3

    home = Path(os.environ["HERMES_HOME"])
    home.mkdir()
    (home / "config.yaml").write_text("sessions:\n  auto_prune: true\n  retention_days: 30\n")
    database = home / "state.db"
    now = time.time()
    with sqlite3.connect(database) as conn:
        conn.execute("CREATE TABLE sessions (id TEXT, started_at REAL, ended_at REAL)")
        conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT)")
        sessions = [("near", now - 28 * DAY), ("fresh", now - 2 * DAY), ("open", now - 29 * DAY)]
        for sid, started in sessions:
            ended = None if sid == "open" else started + 60  # an open session is never pruned
            conn.execute("INSERT INTO sessions VALUES (?, ?, ?)", (sid, started, ended))
            conn.execute("INSERT INTO messages (session_id) VALUES (?)", (sid,))
    (risk,) = unindexed_at_risk().at_risk
    assert (risk.harness, risk.path, risk.sessions) == ("hermes", str(database), ["near"])
    from funes.inspect.checks_retention import retention_checks

    (check,) = retention_checks()
    assert f"{database} sessions near (deleted in 2.0 days)" in check.detail
    assert "`funes add hermes --keep-transcripts`" in check.fix


def test_doctor_fix_reads_the_transcripts_at_risk(tmp_path: Path) -> None:
    at_risk = _aged(tmp_path, "bbbb", 28.5)
    later = _aged(tmp_path, "aaaa", 1)
    fixed = CliRunner().invoke(main, ["doctor", "--fix", "--json"])
    check = next(c for c in json.loads(fixed.output)["checks"] if c["name"] == "agent retention")
    assert check["status"] == "ok", check
    assert check["detail"].startswith("indexed 1 transcript(s) their agent was about to delete")
    from funes.index.state import IndexState

    read = IndexState.load().units
    assert str(at_risk) in read and str(later) not in read  # just the one at risk

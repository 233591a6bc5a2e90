"""What `funes add` says about an agent's own retention, and `--keep-transcripts`.

Claude Code deletes transcripts after `cleanupPeriodDays` (default 30). `funes add claude
--keep-transcripts` sets it to KEEP_DAYS (ten years; never 0, which Claude Code rejects) by
editing that one value of `~/.claude/settings.json` in place (funes.installers.json_members):
every other byte of the file stays as the user wrote it. What it replaced is recorded in
`$FUNES_HOME/integrations/<agent>-retention.json`, and `funes remove claude` puts it back (the
old value, or no key), byte for byte, unless the user changed the value since (then it stays,
and a note says so). Gemini CLI and Hermes keep their sessions unless the user turned their
retention on: `add` names it, and `--keep-transcripts` leaves their settings alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from funes.installers.base import ConfigError, InstallReport, read_config_text, write_atomic
from funes.installers.json_members import find_member, remove_member, set_member
from funes.paths import claude_home, funes_home
from funes.traces.retention import Retention, retention_of

KEEP_DAYS = 3650
CLAUDE_KEY = "cleanupPeriodDays"
# `funes add AGENT` → the agent whose retention it reads.
HARNESS_OF = {"claude": "claude_code", "gemini": "gemini", "hermes": "hermes"}


def _record_path(agent: str) -> Path:
    return funes_home() / "integrations" / f"{agent}-retention.json"


def retention_note(agent: str) -> str:
    """One line for `funes add AGENT`: the agent's retention as configured, and the way to keep
    transcripts longer when it deletes them ("" for an agent that never deletes its own)."""
    harness = HARNESS_OF.get(agent)
    rule = retention_of(harness) if harness else None
    if rule is None:
        return ""
    said = rule.describe()
    if rule.days is None:
        return said
    keep = (
        f"; `funes add {agent} --keep-transcripts` sets {CLAUDE_KEY} to {KEEP_DAYS}"
        if agent == "claude" and rule.days < KEEP_DAYS
        else ""
    )
    return f"{said}; funes keeps what it indexed after that{keep}"


def keep_transcripts(agent: str, report: InstallReport) -> None:
    """Lengthen the agent's retention (Claude Code: cleanupPeriodDays → KEEP_DAYS); what it
    changed goes into `report`. Raises ConfigError for a settings file that does not parse."""
    if agent != "claude":
        harness = HARNESS_OF.get(agent)
        rule: Retention | None = retention_of(harness) if harness else None
        if rule is None or rule.days is None:
            report.notes.append(f"--keep-transcripts: {agent} keeps its transcripts already")
        else:
            report.notes.append(
                f"--keep-transcripts: funes changes only Claude Code's setting; {rule.describe()}"
                " — turn it off there to keep them"
            )
        return
    path = claude_home() / "settings.json"
    text = read_config_text(path)
    member = _member(path, text)
    old = text[member.value_start : member.value_end] if member else None
    if member is not None and _days(old) is not None and (_days(old) or 0) >= KEEP_DAYS:
        report.notes.append(f"Claude Code keeps transcripts {old} days already ({path})")
        return
    record = _record_path(agent)
    if not record.exists():
        saved = {"file": str(path), "existed": path.exists(), "old": old, "set": str(KEEP_DAYS)}
        write_atomic(record, json.dumps(saved, indent=2) + "\n", backup=False)
    new_text = set_member(text, CLAUDE_KEY, str(KEEP_DAYS))
    if write_atomic(path, new_text, backup=False):
        report.changed.append(path)
    report.notes.append(
        f"Claude Code now keeps transcripts {KEEP_DAYS} days ({CLAUDE_KEY} in {path}, was "
        f"{old if old is not None else 'unset: 30 days'}); `funes remove claude` puts it back"
    )


def restore_transcripts(agent: str, report: InstallReport) -> None:
    """Undo `keep_transcripts`: the old value (or no key) back where it was."""
    record = _record_path(agent)
    if not record.exists():
        return
    saved: dict[str, Any] = json.loads(record.read_text())
    path = Path(saved["file"])
    text = read_config_text(path)
    member = _member(path, text) if text.strip() else None
    now = text[member.value_start : member.value_end] if member else None
    if member is None or _days(now) != _days(saved["set"]):
        report.notes.append(
            f"{CLAUDE_KEY} in {path} was changed since `funes add --keep-transcripts` "
            f"(now {now if now is not None else 'unset'}): left as it is"
        )
        record.unlink()
        return
    if saved["old"] is not None:
        restored = text[: member.value_start] + saved["old"] + text[member.value_end :]
    else:
        restored = remove_member(text, CLAUDE_KEY)
    if not saved["existed"] and not json.loads(restored):
        path.unlink()  # funes created the file for this one key
        report.changed.append(path)
    elif write_atomic(path, restored, backup=False):
        report.changed.append(path)
    record.unlink()


def _member(path: Path, text: str) -> Any:
    if not text.strip():
        return None
    try:
        return find_member(text, CLAUDE_KEY)
    except ValueError as error:
        raise ConfigError(path, None, f"not a JSON object ({error})") from None


def _days(literal: str | None) -> float | None:
    try:
        value = json.loads(literal) if literal is not None else None
    except ValueError:
        return None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

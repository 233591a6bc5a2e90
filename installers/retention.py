"""What `funes add` says about an agent's own retention, and `--keep-transcripts`.

Claude Code deletes transcripts after `cleanupPeriodDays` (default 30). `funes add claude
--keep-transcripts` sets it to KEEP_DAYS (ten years; never 0, which Claude Code rejects) by
editing that one value of `~/.claude/settings.json` in place (funes.installers.json_members):
every other byte of the file stays as the user wrote it. What it replaced is recorded in
`$FUNES_HOME/integrations/<agent>-retention.json`, and `funes remove claude` puts it back (the
old value, or no key), byte for byte, unless the user changed the value since (then it stays,
and a note says so). Gemini CLI (30 days by default in current versions) and Hermes (when its
prune is on) are lengthened the same way: `general.sessionRetention.maxAge` to "3650d" (the
objects on the way added when absent), `sessions.retention_days` to 3650 in config.yaml,
edited as one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from funes.installers.base import ConfigError, InstallReport, read_config_text, write_atomic
from funes.installers.json_members import find_path, remove_path, set_path
from funes.installers.yaml_value import find_child, remove_child, set_child
from funes.paths import claude_home, funes_home, gemini_dir, hermes_home
from funes.traces.retention import Retention, retention_of

KEEP_DAYS = 3650
CLAUDE_KEY = "cleanupPeriodDays"
# `funes add AGENT` → the agent whose retention it reads.
HARNESS_OF = {"claude": "claude_code", "gemini": "gemini", "hermes": "hermes"}


@dataclass(frozen=True, slots=True)
class Knob:
    """The one value `--keep-transcripts` sets in an agent's settings."""

    file: Path
    kind: str  # json | yaml
    path: tuple[str, ...]  # keys down to the value
    keep: str  # the literal written
    name: str  # how people know the setting


def _knob(agent: str) -> Knob | None:
    if agent == "claude":
        return Knob(
            claude_home() / "settings.json", "json", (CLAUDE_KEY,), str(KEEP_DAYS), CLAUDE_KEY
        )
    if agent == "gemini":
        keys: tuple[str, ...] = ("general", "sessionRetention", "maxAge")
        return Knob(gemini_dir() / "settings.json", "json", keys, f'"{KEEP_DAYS}d"', ".".join(keys))
    if agent == "hermes":
        keys = ("sessions", "retention_days")
        return Knob(hermes_home() / "config.yaml", "yaml", keys, str(KEEP_DAYS), ".".join(keys))
    return None


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
    knob = _knob(agent)
    keep = (
        f"; `funes add {agent} --keep-transcripts` sets {knob.name} to {knob.keep}"
        if knob is not None and rule.days < KEEP_DAYS
        else ""
    )
    return f"{said}; funes keeps what it indexed after that{keep}"


def keep_transcripts(agent: str, report: InstallReport) -> None:
    """Lengthen the agent's retention to KEEP_DAYS (Claude Code's cleanupPeriodDays, Gemini
    CLI's sessionRetention.maxAge, Hermes's sessions.retention_days); what it changed goes into
    `report`. Raises ConfigError for a settings file that does not parse."""
    harness = HARNESS_OF.get(agent)
    rule: Retention | None = retention_of(harness) if harness else None
    knob = _knob(agent)
    if rule is None or knob is None or (rule.days is None and agent != "claude"):
        report.notes.append(f"--keep-transcripts: {agent} keeps its transcripts already")
        return
    if rule.problem:
        report.notes.append(f"--keep-transcripts: nothing changed; {rule.describe()}")
        return
    text = read_config_text(knob.file)
    span = _span(knob, text)
    old = text[span[0] : span[1]] if span else None
    if rule.days is not None and rule.days >= KEEP_DAYS:
        report.notes.append(f"{rule.describe()}: long enough already")
        return
    record = _record_path(agent)
    changed, added_at = _set(knob, text)
    if not record.exists():
        saved = {
            "file": str(knob.file),
            "existed": knob.file.exists(),
            "old": old,
            "set": knob.keep,
            "added_at": added_at,  # the depth of the key funes added (when there was no value)
        }
        write_atomic(record, json.dumps(saved, indent=2) + "\n", backup=False)
    report.write(knob.file, changed, backup=False)
    was = old if old is not None else f"unset: {rule.days:g} days"
    report.notes.append(
        f"{rule.agent} now keeps transcripts {KEEP_DAYS} days ({knob.name} in {knob.file}, was "
        f"{was}); `funes remove {agent}` puts it back"
    )


def restore_transcripts(agent: str, report: InstallReport) -> None:
    """Undo `keep_transcripts`: the old value (or no key) back where it was."""
    record = _record_path(agent)
    knob = _knob(agent)
    if knob is None or not record.exists():
        return
    saved: dict[str, Any] = json.loads(record.read_text())
    path = Path(saved["file"])
    knob = Knob(path, knob.kind, knob.path, saved["set"], knob.name)
    text = read_config_text(path)
    span = _span(knob, text) if text.strip() else None
    now = text[span[0] : span[1]] if span else None
    if span is None or now != saved["set"]:
        report.notes.append(
            f"{knob.name} in {path} was changed since `funes add --keep-transcripts` "
            f"(now {now if now is not None else 'unset'}): left as it is"
        )
        record.unlink()
        return
    if saved["old"] is not None:
        restored = text[: span[0]] + saved["old"] + text[span[1] :]
    elif knob.kind == "yaml":
        restored = remove_child(text, knob.path[0], knob.path[1])
    else:
        restored = remove_path(text, list(knob.path[: int(saved.get("added_at") or 0) + 1]))
    if not saved["existed"] and not restored.strip("{}\n "):
        path.unlink()  # funes created the file for this one key
        report.changed.append(path)
    else:
        report.write(path, restored, backup=False)
    record.unlink()


def _span(knob: Knob, text: str) -> tuple[int, int] | None:
    if not text.strip():
        return None
    if knob.kind == "yaml":
        line = find_child(text, knob.path[0], knob.path[1])
        return (line.value_start, line.value_end) if line else None
    try:
        return find_path(text, list(knob.path))
    except ValueError as error:
        raise ConfigError(knob.file, None, f"not a JSON object ({error})") from None


def _set(knob: Knob, text: str) -> tuple[str, int | None]:
    """The text with the knob set, and the depth of the key added (None: a value replaced)."""
    span = _span(knob, text)
    if span is not None:
        return text[: span[0]] + knob.keep + text[span[1] :], None
    if knob.kind == "yaml":
        return set_child(text, knob.path[0], knob.path[1], knob.keep), 1
    return set_path(text, list(knob.path), knob.keep)

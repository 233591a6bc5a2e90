"""`funes add claude` names Claude Code's retention; `--keep-transcripts` sets cleanupPeriodDays
to 3650 (never 0) changing nothing else in the user's settings file, and `funes remove claude`
gives the old value back byte for byte (issue 34). With the real Claude Code's plugin commands
rewriting the file meanwhile: test_retention_agents.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from funes.cli import main

# The user's own layout: odd spacing, an escape, a key after it, no final newline.
ODD = '{"model":"opus",\n   "cleanupPeriodDays" : 99 ,  "env": {"K": "\\u00e9"}\n}'
TABS = '{\n\t"model": "opus",\n\t"env": {}\n}\n'


def _settings() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"


def _add(*extra: str) -> dict[str, object]:
    out = CliRunner().invoke(main, ["add", "claude", "--budget", "0", "--json", *extra])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def _remove() -> dict[str, object]:
    out = CliRunner().invoke(main, ["remove", "claude", "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


@pytest.mark.parametrize("original", [ODD, TABS, "{}", '{"a": 1}'])
def test_keep_transcripts_changes_one_value_and_remove_gives_the_file_back(
    original: str,
) -> None:
    path = _settings()
    path.parent.mkdir(parents=True)
    path.write_text(original)
    result = _add("--keep-transcripts")
    assert str(path) in result["changed"]
    now = path.read_text()
    data = json.loads(now)
    assert data.pop("cleanupPeriodDays") == 3650
    assert data == {k: v for k, v in json.loads(original).items() if k != "cleanupPeriodDays"}
    if original == ODD:  # the value replaced where it stood, every other byte as it was
        assert now == original.replace(": 99 ,", ": 3650 ,")
    assert any("now keeps transcripts 3650 days" in note for note in result["notes"])

    assert str(path) in _remove()["changed"]
    assert path.read_bytes() == original.encode()


def test_a_settings_file_funes_created_for_the_key_goes_again() -> None:
    path = _settings()
    _add("--keep-transcripts")
    assert json.loads(path.read_text()) == {"cleanupPeriodDays": 3650}
    _remove()
    assert not path.exists()


def test_a_value_the_user_changed_since_is_left_as_it_is() -> None:
    path = _settings()
    path.parent.mkdir(parents=True)
    path.write_text('{"cleanupPeriodDays": 20}\n')
    _add("--keep-transcripts")
    path.write_text('{"cleanupPeriodDays": 45}\n')
    notes = _remove()["notes"]
    assert path.read_text() == '{"cleanupPeriodDays": 45}\n'
    assert any("was changed since `funes add --keep-transcripts` (now 45)" in n for n in notes)


def test_add_names_the_retention_as_configured() -> None:
    notes = _add()["notes"]
    assert (
        f"Claude Code deletes transcripts after 30 days (`cleanupPeriodDays` in {_settings()}, "
        "its default); funes keeps what it indexed after that; `funes add claude "
        "--keep-transcripts` sets cleanupPeriodDays to 3650"
    ) in notes
    _settings().parent.mkdir(parents=True, exist_ok=True)
    _settings().write_text('{"cleanupPeriodDays": 7}')
    notes = _add()["notes"]
    assert any(
        n.startswith("Claude Code deletes transcripts after 7 days (`cleanup") for n in notes
    )
    _settings().write_text('{"cleanupPeriodDays": 5000}')
    again = _add("--keep-transcripts")
    assert _settings().read_text() == '{"cleanupPeriodDays": 5000}'  # longer already: untouched
    assert (
        f"Claude Code deletes transcripts after 5000 days (`cleanupPeriodDays` in {_settings()})"
        ": long enough already"
    ) in again["notes"]


HERMES = """# my Hermes config
model:
  default: stub-model   # keep me
sessions:
    auto_prune: true    # prune old sessions
    vacuum_after_prune: false
"""


def test_hermes_says_its_prune_and_keep_transcripts_lengthens_it_in_place() -> None:
    config = Path(os.environ["HERMES_HOME"]) / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text(HERMES)
    out = CliRunner().invoke(main, ["add", "hermes", "--budget", "0", "--json"])
    notes = json.loads(out.stdout)["notes"]
    assert any(
        n.startswith("Hermes deletes transcripts after 90 days (`sessions.auto_prune`")
        for n in notes
    )
    out = CliRunner().invoke(main, ["add", "hermes", "--budget", "0", "--keep-transcripts"])
    assert out.exit_code == 0, out.output
    assert "retention_days: 3650" in config.read_text() and "# keep me" in config.read_text()
    from funes.traces.retention import hermes_retention

    assert hermes_retention().days == 3650
    assert CliRunner().invoke(main, ["remove", "hermes"]).exit_code == 0
    assert config.read_text() == HERMES


def test_gemini_max_age_is_lengthened_in_place_and_given_back() -> None:
    settings = Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = '{"general": {"sessionRetention": {"enabled": true, "maxAge": "30d"}}, "x": 1}'
    settings.write_text(original)
    out = CliRunner().invoke(main, ["add", "gemini", "--budget", "0", "--keep-transcripts"])
    assert out.exit_code == 0, out.output
    assert settings.read_text() == original.replace('"30d"', '"3650d"')
    assert CliRunner().invoke(main, ["remove", "gemini"]).exit_code == 0
    assert settings.read_text() == original


@pytest.mark.parametrize(
    "original",
    [
        None,  # no settings file: Gemini CLI's default, 30 days
        '{\n  "general": {\n    "vimMode": true\n  }\n}\n',
        '{"general": {"sessionRetention": {"enabled": true}}, "ui": {}}',
    ],
)
def test_gemini_default_retention_is_lengthened_and_given_back(original: str | None) -> None:
    from funes.traces.retention import gemini_retention

    settings = Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    if original is not None:
        settings.write_text(original)
    out = CliRunner().invoke(main, ["add", "gemini", "--budget", "0", "--keep-transcripts"])
    assert out.exit_code == 0, out.output
    assert gemini_retention().days == 3650
    assert CliRunner().invoke(main, ["remove", "gemini"]).exit_code == 0
    if original is None:
        assert not settings.exists() or json.loads(settings.read_text()) in ({}, None)
    else:
        assert settings.read_text() == original

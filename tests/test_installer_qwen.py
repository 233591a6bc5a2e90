"""`funes add qwen` / `remove qwen` at the file level: the MCP server and hooks in
~/.qwen/settings.json, the skill, and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from installer_checks import (
    assert_first_backup_is_kept,
    assert_refused_untouched,
    assert_second_install_changes_no_byte,
    write_config,
)

from funes.installers import installer_for
from funes.installers.base import ConfigError
from funes.installers.qwen import settings_path, skill_path

# The user's settings as the kit (and a person) writes them: one-line objects, their own hook.
USER_SETTINGS = """{
  "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
  "model": {"name": "qwen3-coder-plus"},
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "mcpServers": {"github": {"command": "gh-mcp"}}
}
"""

MALFORMED = [
    ('{\n  "model": {"name": "x"},\n  "hooks": [\n}\n', 4, "not valid JSON"),
    ('{\n  // my settings\n  "model": {"name": "x"}\n}\n', 2, "has comments"),
    ('["not", "an", "object"]\n', 1, "not a JSON object"),
    ('{\n  "mcpServers": ["funes"]\n}\n', 2, '"mcpServers" is not an object'),
    ('{\n  "hooks": {\n    "Stop": {"hooks": []}\n  }\n}\n', 3, '"hooks.Stop" is not a list'),
    ('{\n  "hooks": {\n    "Stop": ["funes"]\n  }\n}\n', 3, 'a "hooks.Stop" group is not'),
]


@pytest.fixture
def installer():
    return installer_for("qwen")


def test_install_adds_the_server_the_hooks_and_the_skill(installer, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    write_config(settings_path(), USER_SETTINGS)

    report = installer.install("acme/team-memory")

    data = json.loads(settings_path().read_text())
    server = data["mcpServers"]["funes"]
    assert (server["command"], server["args"], server["trust"]) == (
        "/opt/funes/bin/funes",
        ["mcp", "acme/team-memory"],
        True,
    )
    assert data["mcpServers"]["github"] == {"command": "gh-mcp"}
    stop = data["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "notify-send done"  # the user's, first
    assert stop[1]["hooks"][0]["command"].endswith("/opt/funes/bin/funes hook qwen")
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["command"].endswith("funes hook qwen")
    assert "name: funes-recall" in skill_path().read_text()
    assert settings_path() in report.changed and skill_path() in report.changed
    status = installer.status()
    assert status["installed"] is True and status["memory"] == "acme/team-memory"


def test_second_install_changes_no_byte(installer, tmp_path: Path) -> None:
    assert_second_install_changes_no_byte(installer, settings_path(), USER_SETTINGS, tmp_path)


def test_backup_of_the_original_settings_is_kept(installer) -> None:
    assert_first_backup_is_kept(installer, settings_path(), USER_SETTINGS)


def test_remove_gives_the_users_bytes_back(installer) -> None:
    write_config(settings_path(), USER_SETTINGS)
    installer.install()
    installer.install("other")  # a re-bind in between

    installer.uninstall()

    assert settings_path().read_text() == USER_SETTINGS
    assert not skill_path().parent.exists()
    assert installer.status()["installed"] is False
    assert installer.uninstall().changed == []


def test_remove_keeps_what_the_user_changed_meanwhile(installer) -> None:
    write_config(settings_path(), USER_SETTINGS)
    installer.install()
    data = json.loads(settings_path().read_text())
    data["model"]["name"] = "qwen3-max"
    settings_path().write_text(json.dumps(data, indent=2) + "\n")

    installer.uninstall()

    left = json.loads(settings_path().read_text())
    assert left["model"]["name"] == "qwen3-max"
    assert "funes" not in left["mcpServers"]
    assert left["hooks"] == json.loads(USER_SETTINGS)["hooks"]


def test_settings_funes_created_are_deleted_on_remove(installer) -> None:
    installer.install()
    assert settings_path().exists()

    installer.uninstall()

    assert not settings_path().exists()


@pytest.mark.parametrize(("text", "line", "problem"), MALFORMED)
def test_malformed_settings_are_refused_untouched(installer, text, line, problem) -> None:
    assert_refused_untouched(installer, settings_path(), text, line, problem, skill_path())


def test_a_skill_funes_did_not_write_is_refused(installer) -> None:
    write_config(skill_path(), "---\nname: my-own\n---\nmine\n")

    with pytest.raises(ConfigError, match="not written by funes"):
        installer.install()

    assert skill_path().read_text() == "---\nname: my-own\n---\nmine\n"
    assert not settings_path().exists()

"""`funes add copilot` / `remove copilot` at the file level: the MCP server in mcp-config.json,
the two hooks in settings.json, the instructions file."""

from __future__ import annotations

import json

import pytest
from installer_checks import (
    assert_first_backup_is_kept,
    assert_refused_untouched,
    assert_second_install_changes_no_byte,
    write_config,
)

from funes.installers import installer_for
from funes.installers.copilot import instructions_path, mcp_config_path, settings_path

# The user's settings.json (their own hooks, laid out by hand) and MCP config (as
# `copilot mcp add` writes it).
USER_SETTINGS = """{
  "autoUpdate": false,
  "hooks": {
    "agentStop": [ { "type": "command", "bash": "notify-send done", "timeoutSec": 5 } ],
    "userPromptSubmitted": [ { "type": "command", "bash": "./log.sh" } ]
  }
}
"""
USER_MCP = json.dumps(
    {"mcpServers": {"github": {"type": "http", "url": "https://example.com/mcp", "tools": ["*"]}}},
    indent=2,
)

# (file, text, line named in the error, problem named in the error) funes must refuse.
MALFORMED = [
    ("settings", '{\n  // mine\n  "autoUpdate": false\n}\n', 2, "not plain JSON"),
    ("settings", '{\n  "hooks": []\n}\n', 2, '"hooks" is not an object'),
    ("settings", '{\n  "hooks": {\n    "agentStop": {}\n  }\n}\n', 3, '"hooks.agentStop" is not'),
    ("settings", '{"hooks": {"sessionEnd": ["true"]}}\n', 1, "entry is not an object"),
    ("mcp", '{\n  "mcpServers": ["github"]\n}\n', 2, '"mcpServers" is not an object'),
    ("mcp", "[1, 2]\n", 1, "not a JSON object"),
]


@pytest.fixture
def installer():
    return installer_for("copilot")


def test_install_adds_the_server_the_hooks_and_the_instructions(installer, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    write_config(settings_path(), USER_SETTINGS)
    write_config(mcp_config_path(), USER_MCP)

    report = installer.install("acme/team-memory")

    servers = json.loads(mcp_config_path().read_text())["mcpServers"]
    assert servers["funes"]["command"] == "/opt/funes/bin/funes"
    assert servers["funes"]["args"] == ["mcp", "acme/team-memory"]
    assert "github" in servers
    hooks = json.loads(settings_path().read_text())["hooks"]
    ours = {"type": "command", "bash": "/opt/funes/bin/funes hook copilot", "timeoutSec": 30}
    assert hooks["agentStop"] == [
        {"type": "command", "bash": "notify-send done", "timeoutSec": 5},
        ours,
    ]
    assert hooks["sessionEnd"] == [ours]
    assert hooks["userPromptSubmitted"] == [{"type": "command", "bash": "./log.sh"}]
    assert "funes-recall" in instructions_path().read_text()
    assert set(report.changed) == {mcp_config_path(), settings_path(), instructions_path()}
    status = installer.status()
    assert status["installed"] is True and status["memory"] == "acme/team-memory"


def test_second_install_changes_no_byte(installer, tmp_path) -> None:
    write_config(mcp_config_path(), USER_MCP)
    assert_second_install_changes_no_byte(installer, settings_path(), USER_SETTINGS, tmp_path)


def test_backup_of_the_original_settings_is_kept(installer) -> None:
    assert_first_backup_is_kept(installer, settings_path(), USER_SETTINGS)


@pytest.mark.parametrize(("which", "text", "line", "problem"), MALFORMED)
def test_malformed_configs_are_refused_untouched(installer, which, text, line, problem) -> None:
    config = settings_path() if which == "settings" else mcp_config_path()
    assert_refused_untouched(installer, config, text, line, problem, instructions_path())


def test_remove_gives_back_the_users_files_byte_for_byte(installer) -> None:
    write_config(settings_path(), USER_SETTINGS)
    write_config(mcp_config_path(), USER_MCP)
    installer.install()

    installer.uninstall()

    assert settings_path().read_text() == USER_SETTINGS
    assert mcp_config_path().read_text() == USER_MCP
    assert not instructions_path().parent.exists()
    assert installer.status()["installed"] is False
    assert installer.uninstall().changed == []  # idempotent


def test_files_funes_created_are_deleted_on_remove(installer) -> None:
    installer.install()
    installer.uninstall()

    assert not mcp_config_path().exists() and not settings_path().exists()

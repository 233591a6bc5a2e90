"""`funes add copilot` / `remove copilot` at the file level: the MCP server in mcp-config.json,
the two hooks in settings.json, the instructions file."""

from __future__ import annotations

import json

from installer_checks import (
    install_bound,
    installer_fixture,
    write_config,
)

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


installer = installer_fixture("copilot")


def test_install_adds_the_server_the_hooks_and_the_instructions(installer, monkeypatch) -> None:
    report = install_bound(
        installer, monkeypatch, (settings_path(), USER_SETTINGS), (mcp_config_path(), USER_MCP)
    )

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

"""`funes add qwen` / `remove qwen` at the file level: the MCP server and hooks in
~/.qwen/settings.json, the skill, and refusals."""

from __future__ import annotations

import json

import pytest
from installer_checks import (
    install_bound,
    installer_fixture,
    write_config,
)

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


installer = installer_fixture("qwen")


def test_install_adds_the_server_the_hooks_and_the_skill(installer, monkeypatch) -> None:
    report = install_bound(installer, monkeypatch, (settings_path(), USER_SETTINGS))

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


def test_a_skill_funes_did_not_write_is_refused(installer) -> None:
    write_config(skill_path(), "---\nname: my-own\n---\nmine\n")

    with pytest.raises(ConfigError, match="not written by funes"):
        installer.install()

    assert skill_path().read_text() == "---\nname: my-own\n---\nmine\n"
    assert not settings_path().exists()

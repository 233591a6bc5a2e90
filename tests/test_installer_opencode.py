"""`funes add opencode` / `remove opencode` at the file level: the plugin folder and the three
entries in opencode.json (MCP server, plugin, instructions)."""

from __future__ import annotations

import json

from installer_checks import (
    install_bound,
    installer_fixture,
    write_config,
)

from funes.installers.opencode import config_path, plugin_dir

# A user's opencode.json, laid out by hand (not as json.dumps would write it), with their own
# MCP server, plugin and instructions.
USER_CONFIG = """{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": { "github": { "type": "remote", "url": "https://example.com/mcp" } },
  "plugin": ["opencode-wakatime"],
  "instructions": ["CONTRIBUTING.md"]
}
"""


installer = installer_fixture("opencode")


def test_install_adds_the_server_the_plugin_and_the_instructions(installer, monkeypatch) -> None:
    report = install_bound(installer, monkeypatch, (config_path(), USER_CONFIG))

    config = json.loads(config_path().read_text())
    target = plugin_dir()
    assert config["mcp"]["funes"]["command"] == ["/opt/funes/bin/funes", "mcp", "acme/team-memory"]
    assert config["mcp"]["funes"]["type"] == "local" and config["mcp"]["funes"]["enabled"]
    assert config["mcp"]["github"] == {"type": "remote", "url": "https://example.com/mcp"}
    assert config["plugin"] == ["opencode-wakatime", (target / "funes.js").as_uri()]
    assert config["instructions"] == ["CONTRIBUTING.md", str(target / "FUNES.md")]
    assert {p.name for p in target.iterdir()} == {"funes.js", "FUNES.md", "funes.json"}
    assert "session.idle" in (target / "funes.js").read_text()
    assert config_path() in report.changed
    assert installer.status()["installed"] is True
    assert installer.status()["memory"] == "acme/team-memory"


def test_remove_keeps_what_the_user_added_since(installer) -> None:
    write_config(config_path(), USER_CONFIG)
    installer.install()
    config = json.loads(config_path().read_text())
    config["theme"] = "tokyonight"
    write_config(config_path(), json.dumps(config, indent=2) + "\n")

    installer.uninstall()

    assert json.loads(config_path().read_text()) == json.loads(USER_CONFIG) | {
        "theme": "tokyonight"
    }

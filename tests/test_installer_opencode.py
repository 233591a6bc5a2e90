"""`funes add opencode` / `remove opencode` at the file level: the plugin folder and the three
entries in opencode.json (MCP server, plugin, instructions)."""

from __future__ import annotations

import json

import pytest
from installer_checks import (
    assert_first_backup_is_kept,
    assert_refused_untouched,
    assert_second_install_changes_no_byte,
    assert_uninstall_restores,
    write_config,
)

from funes.installers import installer_for
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

# (text, line named in the error, problem named in the error) funes must refuse.
MALFORMED_CONFIGS = [
    ('{\n  // my model\n  "model": "x"\n}\n', 2, "not plain JSON"),
    ('["not", "an", "object"]\n', 1, "not a JSON object"),
    ('{\n  "model": "x",\n  "mcp": ["github"]\n}\n', 3, '"mcp" is not an object'),
    ('{\n  "plugin": "opencode-wakatime"\n}\n', 2, '"plugin" is not a list'),
    ('{\n  "mcp": {\n    "funes": "on"\n  }\n}\n', 3, '"mcp.funes" is not an object'),
]


@pytest.fixture
def installer():
    return installer_for("opencode")


def test_install_adds_the_server_the_plugin_and_the_instructions(installer, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    write_config(config_path(), USER_CONFIG)

    report = installer.install("acme/team-memory")

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


def test_second_install_changes_no_byte(installer, tmp_path) -> None:
    assert_second_install_changes_no_byte(installer, config_path(), USER_CONFIG, tmp_path)


def test_backup_of_the_original_config_is_kept(installer) -> None:
    assert_first_backup_is_kept(installer, config_path(), USER_CONFIG)


@pytest.mark.parametrize(("text", "line", "problem"), MALFORMED_CONFIGS)
def test_malformed_configs_are_refused_untouched(installer, text, line, problem) -> None:
    assert_refused_untouched(installer, config_path(), text, line, problem, plugin_dir())


def test_remove_gives_back_the_users_file_byte_for_byte(installer) -> None:
    write_config(config_path(), USER_CONFIG)
    installer.install()

    assert_uninstall_restores(installer, config_path(), USER_CONFIG, plugin_dir())


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


def test_a_config_funes_created_is_deleted_on_remove(installer) -> None:
    installer.install()
    assert config_path().exists()

    installer.uninstall()

    assert not config_path().exists()
    assert not plugin_dir().exists()

"""`funes add hermes` / `remove hermes` at the file level: the plugin folder and config.yaml."""

from __future__ import annotations

import json

import pytest
from installer_checks import (
    assert_add_then_remove_leaves_no_trace,
    assert_remove_names_what_differs,
    install_bound,
    installer_fixture,
    write_config,
)

from funes.installers.hermes import config_path, plugin_dir

# A user's config.yaml: comments, odd spacing, quoting, indented sequences, another plugin.
USER_CONFIG = """# my Hermes setup
model:
  provider: custom   # local server
  base_url: "http://127.0.0.1:8080/v1"
  default: 'my-model'
plugins:
  enabled:
    - disk-cleanup   # keep this one
toolsets:
  - hermes-cli

# the end
"""


installer = installer_fixture("hermes")


def _write_config(text: str) -> None:
    write_config(config_path(), text)


def test_install_writes_the_plugin_and_enables_it(installer, monkeypatch) -> None:
    report = install_bound(installer, monkeypatch)

    target = plugin_dir()
    assert {p.name for p in target.iterdir()} == {"plugin.yaml", "__init__.py", "funes.json"}
    assert "name: funes" in (target / "plugin.yaml").read_text()
    assert json.loads((target / "funes.json").read_text()) == {
        "command": ["/opt/funes/bin/funes"],
        "memory": "acme/team-memory",
    }
    assert config_path().read_text() == "plugins:\n  enabled:\n  - funes\n"
    assert config_path() in report.changed
    assert installer.status() | {"files": []} == {
        "installed": True,
        "files": [],
        "memory": "acme/team-memory",
    }


def test_comments_quotes_and_order_survive(installer) -> None:
    _write_config(USER_CONFIG)

    installer.install()

    assert config_path().read_text() == USER_CONFIG.replace(
        "    - disk-cleanup   # keep this one\n",
        "    - disk-cleanup   # keep this one\n    - funes\n",
    )


def test_unindented_sequences_stay_unindented(installer) -> None:
    flat = "toolsets:\n- hermes-cli\nplugins:\n  enabled:\n  - disk-cleanup\n"
    _write_config(flat)

    installer.install()

    assert config_path().read_text() == flat + "  - funes\n"


def test_remove_prunes_the_plugins_section_funes_created(installer) -> None:
    _write_config("model:\n  default: m  # mine\n")
    installer.install()
    installer.uninstall()
    assert config_path().read_text() == "model:\n  default: m  # mine\n"


@pytest.mark.parametrize("text", [USER_CONFIG, "model: {default: m}   # flow\n", "plugins: {}\n"])
def test_remove_gives_back_the_users_bytes_and_drops_the_backup(installer, text) -> None:
    assert_add_then_remove_leaves_no_trace(installer, config_path(), text)


def test_remove_says_what_changed_meanwhile_and_keeps_the_backup(installer) -> None:
    def user_edits(text: str) -> str:
        return text + "display:\n  skin: mono\n"

    assert_remove_names_what_differs(
        installer, config_path(), USER_CONFIG, user_edits, '"display" was added'
    )


def test_install_re_enables_funes_the_user_had_disabled(installer) -> None:
    _write_config("plugins:\n  disabled:\n  - funes\n")
    report = installer.install()
    assert config_path().read_text() == "plugins:\n  disabled: []\n  enabled:\n  - funes\n"
    assert any("plugins.disabled" in note for note in report.notes)

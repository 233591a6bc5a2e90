"""`funes add hermes` / `remove hermes` at the file level: the plugin folder and config.yaml."""

from __future__ import annotations

import json

import pytest
from installer_checks import (
    assert_add_then_remove_leaves_no_trace,
    assert_first_backup_is_kept,
    assert_refused_untouched,
    assert_remove_names_what_differs,
    assert_second_install_changes_no_byte,
    assert_uninstall_restores,
    write_config,
)

from funes.installers import installer_for
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

# (text, line named in the error, problem named in the error) funes must refuse.
MALFORMED_CONFIGS = [
    ("model:\n  provider: custom\n  base_url: [unclosed\nplugins: {}\n", 4, "not valid YAML"),
    ("- just\n- a list\n", 1, "not a mapping"),
    ("model: {}\nplugins:\n  - funes\n", 2, "`plugins` is not a mapping"),
    ("model: {}\nplugins:\n  enabled: funes\n", 2, "`plugins.enabled` is not a list"),
]


@pytest.fixture
def installer():
    return installer_for("hermes")


def _write_config(text: str) -> None:
    write_config(config_path(), text)


def test_install_writes_the_plugin_and_enables_it(installer, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    report = installer.install("acme/team-memory")

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


def test_second_install_changes_no_byte(installer, tmp_path) -> None:
    assert_second_install_changes_no_byte(installer, config_path(), USER_CONFIG, tmp_path)


def test_backup_of_the_original_config_is_kept(installer) -> None:
    assert_first_backup_is_kept(installer, config_path(), USER_CONFIG)


@pytest.mark.parametrize(("text", "line", "problem"), MALFORMED_CONFIGS)
def test_malformed_config_is_refused_untouched(installer, text, line, problem) -> None:
    assert_refused_untouched(installer, config_path(), text, line, problem, plugin_dir())


def test_remove_restores_the_users_config_and_deletes_the_plugin(installer) -> None:
    _write_config(USER_CONFIG)
    installer.install()
    (plugin_dir() / "__pycache__").mkdir()  # what Hermes leaves after importing the plugin
    (plugin_dir() / "__pycache__" / "x.pyc").write_bytes(b"")

    assert_uninstall_restores(installer, config_path(), USER_CONFIG, plugin_dir())


def test_remove_prunes_the_plugins_section_funes_created(installer) -> None:
    _write_config("model:\n  default: m  # mine\n")
    installer.install()
    installer.uninstall()
    assert config_path().read_text() == "model:\n  default: m  # mine\n"


def test_remove_deletes_the_config_funes_created(installer) -> None:
    assert_add_then_remove_leaves_no_trace(installer, config_path(), None)


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

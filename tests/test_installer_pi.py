"""`funes add pi` / `remove pi` at the file level: the pi package and its settings.json entry."""

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

from funes.installers.pi import package_dir, settings_path

# settings.json as pi writes it (JSON.stringify(…, null, 2)) with the user's own package.
USER_SETTINGS = """{
  "defaultProvider": "anthropic",
  "packages": [
    "npm:@someone/pi-tools"
  ],
  "theme": "dark"
}
"""


installer = installer_fixture("pi")


def test_install_writes_the_package_and_lists_it_in_settings(installer, monkeypatch) -> None:
    report = install_bound(installer, monkeypatch)

    target = package_dir()
    assert {p.name for p in target.iterdir()} == {"index.ts", "package.json", "funes.json"}
    assert json.loads((target / "package.json").read_text())["pi"] == {"extensions": ["./index.ts"]}
    assert json.loads((target / "funes.json").read_text()) == {
        "command": ["/opt/funes/bin/funes"],
        "memory": "acme/team-memory",
    }
    assert json.loads(settings_path().read_text()) == {"packages": [str(target)]}
    assert settings_path() in report.changed
    assert installer.status()["installed"] is True
    assert installer.status()["memory"] == "acme/team-memory"


def test_user_keys_order_and_indent_survive_install_and_remove(installer) -> None:
    four_spaces = json.dumps(json.loads(USER_SETTINGS), indent=4) + "\n"
    write_config(settings_path(), four_spaces)

    installer.install()
    installed = settings_path().read_text()
    assert list(json.loads(installed)) == ["defaultProvider", "packages", "theme"]
    assert json.loads(installed)["packages"] == ["npm:@someone/pi-tools", str(package_dir())]
    assert '\n    "theme": "dark"\n' in installed  # still four-space indented

    installer.uninstall()
    assert settings_path().read_text() == four_spaces


@pytest.mark.parametrize(
    "text", [USER_SETTINGS, '{"theme":"dark",   "packages": [] }', '{ "packages": ["a"] }\n']
)
def test_remove_gives_back_the_users_bytes_and_drops_the_backup(installer, text) -> None:
    assert_add_then_remove_leaves_no_trace(installer, settings_path(), text)


def test_remove_says_what_pi_changed_meanwhile_and_keeps_the_backup(installer) -> None:
    def pi_edits(text: str) -> str:
        return json.dumps({**json.loads(text), "lastChangelogVersion": "0.73.1"}, indent=2)

    assert_remove_names_what_differs(
        installer, settings_path(), USER_SETTINGS, pi_edits, '"lastChangelogVersion" was added'
    )

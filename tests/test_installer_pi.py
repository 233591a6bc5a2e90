"""`funes add pi` / `remove pi` at the file level: the pi package and its settings.json entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from funes.installers import installer_for
from funes.installers.base import ConfigError
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


@pytest.fixture
def installer():
    return installer_for("pi")


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_install_writes_the_package_and_lists_it_in_settings(installer, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    report = installer.install("acme/team-memory")

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


def test_second_install_changes_no_byte(installer, tmp_path) -> None:
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(USER_SETTINGS)
    installer.install()
    before = _snapshot(tmp_path)

    report = installer.install()

    assert report.changed == []
    assert _snapshot(tmp_path) == before


def test_user_keys_order_and_indent_survive_install_and_remove(installer) -> None:
    settings_path().parent.mkdir(parents=True)
    four_spaces = json.dumps(json.loads(USER_SETTINGS), indent=4) + "\n"
    settings_path().write_text(four_spaces)

    installer.install()
    installed = settings_path().read_text()
    assert list(json.loads(installed)) == ["defaultProvider", "packages", "theme"]
    assert json.loads(installed)["packages"] == ["npm:@someone/pi-tools", str(package_dir())]
    assert '\n    "theme": "dark"\n' in installed  # still four-space indented

    installer.uninstall()
    assert settings_path().read_text() == four_spaces


def test_backup_of_the_original_settings_is_kept(installer) -> None:
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(USER_SETTINGS)

    installer.install()
    installer.install("other")  # a later change must not overwrite the first backup

    backup = settings_path().with_name("settings.json.funes-backup")
    assert backup.read_text() == USER_SETTINGS


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ('{\n  "theme": "dark",\n  "packages": [\n}\n', 4, "not valid JSON"),
        ('["not", "an", "object"]\n', 1, "not a JSON object"),
        ('{\n  "theme": "dark",\n  "packages": "npm:x"\n}\n', 3, '"packages" is not a list'),
    ],
)
def test_malformed_settings_are_refused_untouched(installer, text, line, problem) -> None:
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(text)

    with pytest.raises(ConfigError) as caught:
        installer.install()

    assert f"{settings_path()}:{line}" in str(caught.value)
    assert problem in str(caught.value)
    assert settings_path().read_text() == text
    assert not package_dir().exists()  # refused before anything was written
    with pytest.raises(ConfigError):
        installer.uninstall()
    assert settings_path().read_text() == text


def test_remove_keeps_user_packages_and_deletes_only_funes_files(installer) -> None:
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(USER_SETTINGS)
    installer.install()

    installer.uninstall()

    assert settings_path().read_text() == USER_SETTINGS
    assert not package_dir().exists()
    assert installer.status()["installed"] is False
    assert installer.uninstall().changed == []  # idempotent


def test_remove_drops_a_packages_list_funes_created(installer) -> None:
    installer.install()
    installer.uninstall()
    assert json.loads(settings_path().read_text()) == {}

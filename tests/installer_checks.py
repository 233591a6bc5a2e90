"""What the installer tests of every agent check alike: a config file as the user left it, a
byte snapshot of a folder, and a malformed config refused before anything is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from funes.installers import installer_for
from funes.installers.base import ConfigError, InstallReport


def installer_fixture(agent: str) -> Any:
    """The `installer` fixture of test_installer_<agent>.py: `installer = installer_fixture(…)`."""

    @pytest.fixture(name="installer")
    def installer() -> Any:
        return installer_for(agent)

    return installer


def install_bound(
    installer: Any, monkeypatch: pytest.MonkeyPatch, *configs: tuple[Path, str]
) -> InstallReport:
    """`funes add AGENT acme/team-memory` with funes at /opt/funes/bin/funes, over the user's
    `configs` (path, text) written first."""
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    for path, text in configs:
        write_config(path, text)
    return installer.install("acme/team-memory")


def write_config(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_refused_untouched(
    installer: Any, config: Path, text: str, line: int, problem: str, written: Path
) -> None:
    """With `text` in `config`, `install` refuses naming the line and the problem before it
    writes anything (`written` stays absent), `uninstall` refuses too, and `config` is kept."""
    write_config(config, text)

    with pytest.raises(ConfigError) as caught:
        installer.install()

    assert f"{config}:{line}" in str(caught.value)
    assert problem in str(caught.value)
    assert config.read_text() == text
    assert not written.exists()  # refused before anything was written
    with pytest.raises(ConfigError):
        installer.uninstall()
    assert config.read_text() == text


def assert_second_install_changes_no_byte(
    installer: Any, config: Path, text: str, root: Path
) -> None:
    write_config(config, text)
    installer.install()
    before = snapshot(root)

    report = installer.install()

    assert report.changed == []
    assert snapshot(root) == before


def assert_first_backup_is_kept(installer: Any, config: Path, text: str) -> None:
    """The user's `config` as it was before funes first changed it stays in the backup."""
    write_config(config, text)

    installer.install()
    installer.install("other")  # a later change must not overwrite the first backup

    backup = config.with_name(f"{config.name}.funes-backup")
    assert backup.read_text() == text


def assert_uninstall_restores(installer: Any, config: Path, text: str, written: Path) -> None:
    """`uninstall` gives `config` back as `text` and deletes `written`, and a second one does
    nothing."""
    installer.uninstall()

    assert config.read_text() == text
    assert not written.exists()
    assert installer.status()["installed"] is False
    assert installer.uninstall().changed == []  # idempotent


def assert_add_then_remove_leaves_no_trace(installer: Any, config: Path, text: str | None) -> None:
    """`add` then `remove` leaves `config` byte for byte as it was (absent if it was absent),
    with no backup beside it."""
    if text is not None:
        write_config(config, text)
    installer.install()
    installer.uninstall()
    if text is None:
        assert not config.exists()
    else:
        assert config.read_bytes() == text.encode()
    assert not config.with_name(f"{config.name}.funes-backup").exists()


def assert_remove_names_what_differs(
    installer: Any, config: Path, text: str, change: Callable[[str], str], difference: str
) -> None:
    """When the config changed after `add` (the agent or the user edited it), `remove` leaves
    the edit and the backup, and says what differs and where the backup is."""
    write_config(config, text)
    installer.install()
    config.write_text(change(config.read_text()))
    report = installer.uninstall()
    backup = config.with_name(f"{config.name}.funes-backup")
    assert backup.read_text() == text
    [note] = [n for n in report.notes if str(backup) in n]
    assert f"{config} is not as it was before `funes add` ({difference})" in note

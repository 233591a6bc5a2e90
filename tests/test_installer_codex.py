"""`funes add codex` edits the user's Codex config safely: their bytes kept, idempotent, undone
exactly by `funes remove`, malformed files refused untouched."""

from __future__ import annotations

import json

import pytest
import tomlkit

from funes.installers.base import ConfigError
from funes.installers.codex import INSTALLER, config_path, hooks_path

USER_TOML = """\
# my codex config
model = "o3"   # favourite
notify = ["/usr/bin/notify-send", "codex"]

[profiles.fast]
model = "o4-mini"  # quick

[mcp_servers.other]
command = "other-mcp"
args = ["--flag"]
"""
USER_HOOKS = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/bin/true mine"}]}]}}


@pytest.fixture
def user_codex(monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(USER_TOML)
    hooks_text = json.dumps(USER_HOOKS, indent=2) + "\n"
    hooks_path().write_text(hooks_text)
    return USER_TOML, hooks_text


def test_install_adds_server_hook_and_chained_notify(user_codex: tuple[str, str]) -> None:
    report = INSTALLER.install()
    assert set(report.changed) == {config_path(), hooks_path()}
    text = config_path().read_text()
    assert text.startswith('# my codex config\nmodel = "o3"   # favourite\n')
    assert '[profiles.fast]\nmodel = "o4-mini"  # quick\n' in text
    doc = tomlkit.parse(text)
    server = doc["mcp_servers"]["funes"]
    assert server["command"] == "/opt/funes/bin/funes" and server["args"] == ["mcp"]
    assert server["default_tools_approval_mode"] == "approve"
    assert doc["mcp_servers"]["other"]["command"] == "other-mcp"
    assert doc["mcp_optional_startup_grace_ms"] > 0
    assert doc["notify"] == [
        "/opt/funes/bin/funes",
        "hook",
        "codex",
        "--chain",
        "/usr/bin/notify-send",
        "codex",
    ]
    stop = json.loads(hooks_path().read_text())["hooks"]["Stop"]
    assert stop[0] == USER_HOOKS["hooks"]["Stop"][0]  # the user's hook keeps its trust key
    assert stop[-1]["hooks"][0]["command"] == "/opt/funes/bin/funes hook codex"
    assert any("trust" in note for note in report.notes)


def test_memory_binding_goes_to_the_server_args(user_codex: tuple[str, str]) -> None:
    INSTALLER.install("acme/kb")
    assert tomlkit.parse(config_path().read_text())["mcp_servers"]["funes"]["args"] == [
        "mcp",
        "acme/kb",
    ]


def test_second_install_changes_no_byte(user_codex: tuple[str, str]) -> None:
    INSTALLER.install()
    before = (config_path().read_bytes(), hooks_path().read_bytes())
    assert INSTALLER.install().changed == []
    assert (config_path().read_bytes(), hooks_path().read_bytes()) == before


def test_backup_keeps_the_users_original(user_codex: tuple[str, str]) -> None:
    INSTALLER.install()
    INSTALLER.install("acme/kb")
    assert config_path().with_name("config.toml.funes-backup").read_text() == user_codex[0]
    assert hooks_path().with_name("hooks.json.funes-backup").read_text() == user_codex[1]


def test_remove_restores_the_users_files_exactly(user_codex: tuple[str, str]) -> None:
    INSTALLER.install()
    report = INSTALLER.uninstall()
    assert set(report.changed) == {config_path(), hooks_path()}
    assert config_path().read_text() == user_codex[0]
    assert hooks_path().read_text() == user_codex[1]
    assert INSTALLER.uninstall().changed == []


def test_install_then_remove_on_a_fresh_home_leaves_nothing() -> None:
    INSTALLER.install()
    assert config_path().exists() and hooks_path().exists()
    INSTALLER.uninstall()
    assert not config_path().exists() and not hooks_path().exists()


def test_malformed_toml_is_refused_with_its_line(user_codex: tuple[str, str]) -> None:
    broken = USER_TOML + "[mcp_servers.bad\ncommand = 1\n"
    config_path().write_text(broken)
    with pytest.raises(ConfigError) as caught:
        INSTALLER.install()
    assert f"{config_path()}:11" in str(caught.value)
    assert config_path().read_text() == broken
    assert hooks_path().read_text() == user_codex[1]


def test_malformed_hooks_json_is_refused_with_its_line(user_codex: tuple[str, str]) -> None:
    hooks_path().write_text('{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n')
    with pytest.raises(ConfigError) as caught:
        INSTALLER.install()
    assert f"{hooks_path()}:3" in str(caught.value)
    assert config_path().read_text() == user_codex[0]


def test_hooks_json_of_the_wrong_shape_is_refused(user_codex: tuple[str, str]) -> None:
    hooks_path().write_text("[1, 2]\n")
    with pytest.raises(ConfigError):
        INSTALLER.install()
    assert hooks_path().read_text() == "[1, 2]\n"


def test_users_notify_is_not_clobbered_and_is_restored(user_codex: tuple[str, str]) -> None:
    INSTALLER.install()
    INSTALLER.install("acme/kb")  # re-install must not chain to itself
    notify = tomlkit.parse(config_path().read_text())["notify"]
    assert notify.count("--chain") == 1 and notify[-2:] == ["/usr/bin/notify-send", "codex"]
    INSTALLER.uninstall()
    assert tomlkit.parse(config_path().read_text())["notify"] == ["/usr/bin/notify-send", "codex"]

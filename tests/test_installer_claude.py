"""`funes add claude`: the plugin rendered with funes's own command, registered through Claude
Code's CLI when it is there (real CLI, `agents` mark), files only when not; idempotent,
undone by `funes remove`, malformed settings refused untouched."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from agent_harness import require_agent

from funes.installers.base import ConfigError
from funes.installers.claude import INSTALLER, rendered_dir
from funes.paths import claude_home


@pytest.fixture
def no_claude(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


@pytest.fixture
def real_claude(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    binary = require_agent("claude")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "backups" not in p.parts  # Claude's own rotating .claude.json copies
    }


@pytest.mark.usefixtures("no_claude")
def test_without_claude_the_plugin_is_written_and_the_commands_printed() -> None:
    report = INSTALLER.install()
    plugin = rendered_dir() / "funes"
    manifest = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["mcpServers"]["funes"] == {
        "command": "/opt/funes/bin/funes",
        "args": ["mcp"],
        "alwaysLoad": True,  # else `claude -p` asks the model before the server is up
    }
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    for event in ("Stop", "SessionEnd"):
        assert hooks[event][0]["hooks"][0]["command"] == "/opt/funes/bin/funes hook claude"
    assert (plugin / "skills" / "recall" / "SKILL.md").read_text().startswith("---\nname: recall")
    assert (rendered_dir() / ".claude-plugin" / "marketplace.json").exists()
    assert plugin / ".claude-plugin" / "plugin.json" in report.changed
    [note] = report.notes
    assert "claude plugin marketplace add" in note and "claude plugin install funes@funes" in note


@pytest.mark.usefixtures("no_claude")
def test_memory_is_baked_into_the_mcp_server() -> None:
    INSTALLER.install("acme/kb")
    manifest = json.loads((rendered_dir() / "funes/.claude-plugin/plugin.json").read_text())
    assert manifest["mcpServers"]["funes"]["args"] == ["mcp", "acme/kb"]


@pytest.mark.usefixtures("no_claude")
def test_second_install_changes_no_byte_and_remove_deletes_the_plugin() -> None:
    INSTALLER.install()
    before = _tree_digest(rendered_dir())
    assert INSTALLER.install().changed == []
    assert _tree_digest(rendered_dir()) == before
    INSTALLER.uninstall()
    assert not rendered_dir().exists()


@pytest.mark.usefixtures("no_claude")
def test_malformed_settings_are_refused_with_their_line() -> None:
    settings = claude_home() / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{\n  "model": "opus",\n  "hooks": {oops}\n}\n')
    with pytest.raises(ConfigError) as caught:
        INSTALLER.install()
    assert f"{settings}:3" in str(caught.value)
    assert settings.read_text() == '{\n  "model": "opus",\n  "hooks": {oops}\n}\n'
    assert not rendered_dir().exists()


@pytest.mark.agents
@pytest.mark.usefixtures("real_claude")
def test_real_claude_install_is_idempotent_and_remove_keeps_user_settings() -> None:
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    user = {"cleanupPeriodDays": 99, "env": {"FOO": "bar"}, "permissions": {"allow": ["Bash(ls)"]}}
    settings.write_text(json.dumps(user, indent=2) + "\n")

    report = INSTALLER.install()
    assert settings in report.changed
    data = json.loads(settings.read_text())
    assert data["enabledPlugins"] == {"funes@funes": True}
    assert {k: data[k] for k in user} == user
    assert json.loads(settings.with_name("settings.json.funes-backup").read_text()) == user
    assert INSTALLER.status()["installed"] is True

    home = Path(os.environ["HOME"])
    before = _tree_digest(home)
    assert INSTALLER.install().changed == []
    assert _tree_digest(home) == before

    INSTALLER.uninstall()
    data = json.loads(settings.read_text())
    assert {k: data[k] for k in user} == user
    for config in (
        settings,
        home / ".claude/plugins/known_marketplaces.json",
        home / ".claude/plugins/installed_plugins.json",
    ):
        assert "funes" not in config.read_text()
    assert not (home / ".claude/plugins/cache/funes").exists()
    assert not rendered_dir().exists()
    shutil.rmtree(home, ignore_errors=True)


@pytest.mark.agents
@pytest.mark.usefixtures("real_claude")
def test_real_claude_add_then_remove_gives_back_the_users_settings_byte_for_byte() -> None:
    home = Path(os.environ["HOME"])
    settings = home / ".claude" / "settings.json"
    backup = settings.with_name("settings.json.funes-backup")
    settings.parent.mkdir(parents=True)
    # Claude Code's `plugin marketplace add` rewrites this file and drops "model".
    original = '{\n    "model": "opus",\n    "cleanupPeriodDays": 99\n}\n'
    settings.write_text(original)

    report = INSTALLER.install()
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["enabledPlugins"] == {"funes@funes": True}
    [note] = [n for n in report.notes if '"model"' in n]
    assert str(backup) in note

    report = INSTALLER.uninstall()
    assert settings.read_text() == original
    assert not backup.exists()
    assert not [n for n in report.notes if "settings.json" in n]

    # Changed meanwhile: the change stays, and remove says what differs and where the backup is.
    INSTALLER.install()
    data = json.loads(settings.read_text())
    settings.write_text(json.dumps({**data, "cleanupPeriodDays": 7}, indent=2) + "\n")
    report = INSTALLER.uninstall()
    assert json.loads(settings.read_text()) == {"model": "opus", "cleanupPeriodDays": 7}
    assert backup.read_text() == original
    assert f'{settings} is not as it was before `funes add` ("cleanupPeriodDays" changed); ' in (
        "\n".join(report.notes)
    )
    shutil.rmtree(home, ignore_errors=True)


@pytest.mark.agents
@pytest.mark.usefixtures("real_claude")
def test_real_claude_remove_deletes_the_settings_file_funes_made_it_create() -> None:
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    INSTALLER.install()
    assert json.loads(settings.read_text())["enabledPlugins"] == {"funes@funes": True}
    INSTALLER.uninstall()
    assert not settings.exists()
    assert not settings.with_name("settings.json.funes-backup").exists()

"""`funes add gemini` / `remove gemini` at the file level (no `gemini` on PATH here; the real
CLI links the extension in tests/test_agents_gemini.py): the rendered extension, the policy
file, and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from installer_checks import install_bound, snapshot, write_config

from funes.installers import installer_for
from funes.installers.base import ConfigError
from funes.installers.gemini import extension_dir, link_record, policy_path


@pytest.fixture
def installer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no gemini: install writes, and says how to link
    return installer_for("gemini")


def test_install_renders_the_extension_and_the_policy(installer, monkeypatch) -> None:
    report = install_bound(installer, monkeypatch)

    folder = extension_dir()
    manifest = json.loads((folder / "gemini-extension.json").read_text())
    server = manifest["mcpServers"]["funes"]
    assert (server["command"], server["args"]) == (
        "/opt/funes/bin/funes",
        ["mcp", "acme/team-memory"],
    )
    assert server["env"]["FUNES_HOME"]  # carried: Gemini CLI may strip unknown variables
    assert manifest["contextFileName"] == "FUNES.md" and (folder / "FUNES.md").exists()
    hooks = json.loads((folder / "hooks/hooks.json").read_text())["hooks"]
    assert set(hooks) == {"AfterAgent", "SessionEnd"}
    command = hooks["AfterAgent"][0]["hooks"][0]["command"]
    assert command.endswith("/opt/funes/bin/funes hook gemini")
    assert "name: recall" in (folder / "skills/recall/SKILL.md").read_text()
    policy = policy_path().read_text()
    assert '"mcp_funes_recall", "mcp_funes_get"' in policy
    assert policy_path() in report.changed
    assert any("gemini extensions link . --consent" in note for note in report.notes)
    # Not linked yet (no gemini here): status says so.
    assert installer.status()["installed"] is False
    assert installer.status()["memory"] == "acme/team-memory"


def test_second_install_changes_no_byte(installer, tmp_path: Path) -> None:
    installer.install()
    before = snapshot(tmp_path)

    assert installer.install().changed == []
    assert snapshot(tmp_path) == before


def test_linked_extension_counts_as_installed_and_uninstall_removes_funes_files(installer) -> None:
    settings = policy_path().parent.parent / "settings.json"
    write_config(settings, '{\n  // the user\'s own\n  "ui": {"theme": "Dracula"}\n}\n')
    installer.install()
    write_config(link_record(), json.dumps({"source": str(extension_dir()), "type": "link"}))
    assert installer.status()["installed"] is True

    report = installer.uninstall()

    assert not policy_path().exists() and not extension_dir().exists()
    assert any("gemini extensions uninstall funes" in note for note in report.notes)
    assert settings.read_text().startswith("{\n  // the user's own")  # never touched


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ('{"source": "/home/me/my-funes", "type": "link"}', "already installed from /home/me"),
        ("[1, 2]", 'expected an object {"source"'),
        ('{"source": ', "not valid JSON"),
    ],
)
def test_a_foreign_or_broken_funes_extension_is_refused(installer, record, problem) -> None:
    write_config(link_record(), record)

    with pytest.raises(ConfigError) as caught:
        installer.install()

    assert problem in str(caught.value) and str(link_record()) in str(caught.value)
    assert not extension_dir().exists() and not policy_path().exists()
    assert link_record().read_text() == record


def test_a_policy_file_funes_did_not_write_is_refused_and_kept(installer) -> None:
    theirs = '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\n'
    write_config(policy_path(), theirs)

    with pytest.raises(ConfigError, match="not written by funes"):
        installer.install()
    with pytest.raises(ConfigError):
        installer.uninstall()

    assert policy_path().read_text() == theirs and not extension_dir().exists()

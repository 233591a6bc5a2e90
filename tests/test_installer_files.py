"""What every installer that edits a config file promises, checked for each of them alike: a
second install changes no byte, the user's file from before funes is kept aside, a malformed
config is refused before anything is written, and remove gives the user's file back (or
deletes the one funes created). Each agent's own file (test_installer_<agent>.py) checks what
is its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import test_installer_copilot as copilot_tests
import test_installer_hermes as hermes_tests
import test_installer_opencode as opencode_tests
import test_installer_pi as pi_tests
import test_installer_qwen as qwen_tests
from installer_checks import (
    assert_first_backup_is_kept,
    assert_refused_untouched,
    assert_second_install_changes_no_byte,
    assert_uninstall_restores,
    write_config,
)

from funes.installers import copilot, hermes, installer_for, opencode, pi, qwen
from funes.installers.base import InstallReport
from funes.integrations.agents import record_install
from funes.integrations.status import memory_status, render_status


@dataclass(frozen=True)
class Wiring:
    """An agent's config file funes edits, as the user had it, and what else funes writes."""

    agent: str
    config: Callable[[], Path]
    user_text: str
    written: Callable[[], Path]  # the folder or file funes writes besides the config


HERMES = Wiring("hermes", hermes.config_path, hermes_tests.USER_CONFIG, hermes.plugin_dir)
OPENCODE = Wiring("opencode", opencode.config_path, opencode_tests.USER_CONFIG, opencode.plugin_dir)
PI = Wiring("pi", pi.settings_path, pi_tests.USER_SETTINGS, pi.package_dir)
QWEN = Wiring("qwen", qwen.settings_path, qwen_tests.USER_SETTINGS, qwen.skill_path)
COPILOT = Wiring(
    "copilot", copilot.settings_path, copilot_tests.USER_SETTINGS, copilot.instructions_path
)
EDITED = [HERMES, OPENCODE, PI, QWEN, COPILOT]
IDS = [wiring.agent for wiring in EDITED]

# For each config file: (its text, the line named in the error, the problem named) refused.
REFUSED: dict[tuple[Wiring, Callable[[], Path]], list[tuple[str, int, str]]] = {
    (HERMES, hermes.config_path): [
        ("model:\n  provider: custom\n  base_url: [unclosed\nplugins: {}\n", 4, "not valid YAML"),
        ("- just\n- a list\n", 1, "not a mapping"),
        ("model: {}\nplugins:\n  - funes\n", 2, "`plugins` is not a mapping"),
        ("model: {}\nplugins:\n  enabled: funes\n", 2, "`plugins.enabled` is not a list"),
    ],
    (OPENCODE, opencode.config_path): [
        ('{\n  // my model\n  "model": "x"\n}\n', 2, "not plain JSON"),
        ('["not", "an", "object"]\n', 1, "not a JSON object"),
        ('{\n  "model": "x",\n  "mcp": ["github"]\n}\n', 3, '"mcp" is not an object'),
        ('{\n  "plugin": "opencode-wakatime"\n}\n', 2, '"plugin" is not a list'),
        ('{\n  "mcp": {\n    "funes": "on"\n  }\n}\n', 3, '"mcp.funes" is not an object'),
    ],
    (PI, pi.settings_path): [
        ('{\n  "theme": "dark",\n  "packages": [\n}\n', 4, "not valid JSON"),
        ('["not", "an", "object"]\n', 1, "not a JSON object"),
        ('{\n  "theme": "dark",\n  "packages": "npm:x"\n}\n', 3, '"packages" is not a list'),
    ],
    (QWEN, qwen.settings_path): [
        ('{\n  "model": {"name": "x"},\n  "hooks": [\n}\n', 4, "not valid JSON"),
        ('{\n  // my settings\n  "model": {"name": "x"}\n}\n', 2, "has comments"),
        ('["not", "an", "object"]\n', 1, "not a JSON object"),
        ('{\n  "mcpServers": ["funes"]\n}\n', 2, '"mcpServers" is not an object'),
        ('{\n  "hooks": {\n    "Stop": {"hooks": []}\n  }\n}\n', 3, '"hooks.Stop" is not a list'),
        ('{\n  "hooks": {\n    "Stop": ["funes"]\n  }\n}\n', 3, 'a "hooks.Stop" group is not'),
    ],
    (COPILOT, copilot.settings_path): [
        ('{\n  // mine\n  "autoUpdate": false\n}\n', 2, "not plain JSON"),
        ('{\n  "hooks": []\n}\n', 2, '"hooks" is not an object'),
        ('{\n  "hooks": {\n    "agentStop": {}\n  }\n}\n', 3, '"hooks.agentStop" is not'),
        ('{"hooks": {"sessionEnd": ["true"]}}\n', 1, "entry is not an object"),
    ],
    (COPILOT, copilot.mcp_config_path): [
        ('{\n  "mcpServers": ["github"]\n}\n', 2, '"mcpServers" is not an object'),
        ("[1, 2]\n", 1, "not a JSON object"),
    ],
}
MALFORMED = [(*where, *case) for where, cases in REFUSED.items() for case in cases]


@pytest.mark.parametrize("wiring", EDITED, ids=IDS)
def test_second_install_changes_no_byte(wiring: Wiring, tmp_path: Path) -> None:
    installer = installer_for(wiring.agent)
    assert_second_install_changes_no_byte(installer, wiring.config(), wiring.user_text, tmp_path)


@pytest.mark.parametrize("wiring", EDITED, ids=IDS)
def test_the_users_config_from_before_funes_is_kept_aside(wiring: Wiring) -> None:
    assert_first_backup_is_kept(installer_for(wiring.agent), wiring.config(), wiring.user_text)


@pytest.mark.parametrize(
    ("wiring", "config", "text", "line", "problem"),
    MALFORMED,
    ids=[f"{case[0].agent}-{n}" for n, case in enumerate(MALFORMED)],
)
def test_a_malformed_config_is_refused_untouched(
    wiring: Wiring, config: Callable[[], Path], text: str, line: int, problem: str
) -> None:
    installer = installer_for(wiring.agent)
    assert_refused_untouched(installer, config(), text, line, problem, wiring.written())


@pytest.mark.parametrize("wiring", [HERMES, OPENCODE, PI], ids=IDS[:3])
def test_remove_gives_back_the_users_config_and_deletes_the_plugin(wiring: Wiring) -> None:
    installer = installer_for(wiring.agent)
    write_config(wiring.config(), wiring.user_text)
    installer.install()
    leftover = wiring.written() / "__pycache__"  # what Hermes leaves after importing the plugin
    leftover.mkdir()
    (leftover / "x.pyc").write_bytes(b"")

    assert_uninstall_restores(installer, wiring.config(), wiring.user_text, wiring.written())


@pytest.mark.parametrize(
    "wiring", [HERMES, OPENCODE, PI, QWEN], ids=["hermes", "opencode", "pi", "qwen"]
)
def test_a_config_funes_created_is_deleted_on_remove(wiring: Wiring) -> None:
    installer = installer_for(wiring.agent)
    installer.install()
    assert wiring.config().exists()

    installer.uninstall()

    assert not wiring.config().exists()
    assert not wiring.config().with_name(f"{wiring.config().name}.funes-backup").exists()
    assert not wiring.written().exists()


# One config each agent cannot read (its first refused text): `funes status` names it.
UNREADABLE = [next(case for case in MALFORMED if case[0] is wiring) for wiring in EDITED]


@pytest.mark.parametrize(("wiring", "config", "text", "line", "problem"), UNREADABLE, ids=IDS)
def test_status_names_the_config_it_cannot_read(
    wiring: Wiring, config: Callable[[], Path], text: str, line: int, problem: str
) -> None:
    record_install(wiring.agent, InstallReport(agent=wiring.agent), None)
    write_config(config(), text)

    status = installer_for(wiring.agent).status()
    shown = render_status(memory_status())

    assert status["installed"] is False and status["files"] == []
    assert f"{config()}:{line}" in str(status["error"]) and problem in str(status["error"])
    said = f"agent {wiring.agent}: config problem: {config()}:{line}"
    assert said in shown, shown

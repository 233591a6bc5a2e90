"""Every command teaches: it has --help with an example, and the README names it."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from funes.cli import COMMANDS, main

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_has_help_and_is_documented(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage: " in result.output and len(result.output.splitlines()) > 4
    assert f"funes {name}" in README, f"README does not mention `funes {name}`"


def test_top_level_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


SKILLS = sorted((Path(__file__).resolve().parents[1] / "plugins").glob("*/**/SKILL.md"))


@pytest.mark.parametrize("skill", SKILLS, ids=lambda p: p.parent.parent.parent.name)
def test_the_options_a_skill_lists_are_the_commands_options(skill: Path) -> None:
    """The skill lists each command's options so that an agent need not spend a call on
    `--help` (agentic benchmark: 2-3 help calls an agent); a renamed option must not leave the
    skill teaching one that fails."""
    import re

    text = skill.read_text()
    listed = text.split("enough without `--help`:", 1)[1].split("\n\n", 1)[0]
    lines = re.findall(r"^- `(\w+) ((?:.|\n  )*?)`", listed, re.M)
    assert {name for name, _ in lines} == {"recall", "timeline", "get", "sessions"}
    for name, usage in lines:
        command = main.get_command(click.Context(main), name)
        assert command is not None
        options = {opt for param in command.params for opt in param.opts}
        for flag in re.findall(r"(?<![\w-])(-{1,2}[a-z][\w-]*)", usage):
            assert flag in options, f"{skill}: `{name} {flag}` is not an option of funes {name}"

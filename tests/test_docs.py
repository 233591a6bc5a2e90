"""Every command teaches: it has --help with an example, and the README names it."""

from __future__ import annotations

from pathlib import Path

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

"""`funes ui` serves one memory: naming several is refused at start, in one line, rather than
the last silently winning or every call failing later."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from funes.cli import main


@pytest.mark.parametrize(
    "args",
    [["--memory", "local", "--memory", "team/x"], ["--memory", "local,team/x"]],
    ids=["repeated", "comma-separated"],
)
def test_several_memories_are_refused_before_serving(args: list[str]) -> None:
    out = CliRunner().invoke(main, ["ui", "--no-open", *args])
    assert out.exit_code == 2
    assert "funes ui serves one memory at a time, got 2 (local, team/x)" in out.output
    assert "http://" not in out.output  # nothing was served

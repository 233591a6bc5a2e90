"""`funes sessions` on a real terminal (tmux): typing a word said deep inside a session finds
it, the preview says where it stopped, Ctrl-Y copies the command that resumes it, Ctrl-O reads
it in the pager and comes back to the list."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from funes.index.indexer import index

CODERABBIT = (
    "claude/daaain__claude-code-log__real_projects/-Users-dain-workspace-coderabbit-review-helper"
)
SESSION = "cb2e607c-c758-415a-8b45-c49e4631906a"  # 162 turns; "hatchling" is said deep inside


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Callable[..., str]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    socket = str(tmp_path / f"tmux-{uuid.uuid4().hex[:6]}")

    def run(*args: str) -> str:
        done = subprocess.run(["tmux", "-S", socket, *args], capture_output=True, text=True)
        return done.stdout

    yield run
    run("kill-server")


def _screen(tmux: Callable[..., str]) -> str:
    return tmux("capture-pane", "-p", "-t", "picker")


def _wait(tmux: Callable[..., str], text: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(tmux)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared on the screen:\n{screen}")


def test_the_picker_finds_reads_and_copies_a_session_in_tmux(
    corpus: Path, tmux: Callable[..., str]
) -> None:
    index([corpus / CODERABBIT])
    env = {k: v for k, v in os.environ.items() if k != "FUNES_NO_TUI"}
    # curses believes COLUMNS and LINES over the terminal: the pane's size must win.
    command = (
        f"env -u COLUMNS -u LINES {sys.executable} -m funes.cli sessions; "
        "echo picker-exited-$?; sleep 60"
    )
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "picker", "-x", "160", "-y", "40", command)
    tmux("set-option", "-g", "set-clipboard", "on")
    for key, value in env.items():
        if key.startswith(("FUNES", "CLAUDE", "CODEX", "HF_", "LANCEDB", "PI_", "HERMES")):
            tmux("set-environment", "-t", "picker", key, value)
    _wait(tmux, "Enter resume")
    tmux("send-keys", "-t", "picker", "-l", "hatchling")
    screen = _wait(tmux, "[28×]")  # the session that says it most, with how often
    assert "cb2e607c" in screen
    # The preview reads the session: its last prompt, its answer, the files it changed.
    screen = _wait(tmux, "last prompt:")
    assert "Let's update readme with the working reinstall" in screen
    assert "answer:" in screen and "files:" in screen and "pyproject.toml" in screen
    assert "stopped:" in screen
    # Ctrl-Y: the resume command on the clipboard (tmux keeps what OSC 52 sent as a buffer).
    tmux("send-keys", "-t", "picker", "C-y")
    screen = _wait(tmux, "copied")
    assert f"claude --resume {SESSION}" in screen
    assert f"claude --resume {SESSION}" in tmux("show-buffer")
    # Ctrl-O: the whole session in the pager; q comes back to the list.
    tmux("send-keys", "-t", "picker", "C-o")
    screen = _wait(tmux, "session cb2e607c-c758-415a-8b45-c49e4631906a ·")
    assert "Enter resume" not in screen
    tmux("send-keys", "-t", "picker", "q")
    _wait(tmux, "Enter resume")
    # The next match is the subagent it started: named with its parent and its task.
    tmux("send-keys", "-t", "picker", "Down")
    _wait(tmux, f"subagent of {SESSION} · task: Explore project structure for packaging")
    tmux("send-keys", "-t", "picker", "Escape")
    _wait(tmux, "picker-exited-0")


def test_show_on_a_terminal_pages_in_colour_with_one_label_per_tool(
    corpus: Path, tmux: Callable[..., str]
) -> None:
    from funes.inspect.sessions import format_show_human, show_session

    index([corpus / CODERABBIT])
    text = format_show_human(show_session(SESSION), width=100)
    assert "[tool_use" not in text and "[tool_result" not in text  # labels not doubled
    assert "<ide_selection>" not in text and "(selected in the IDE) The user selected" in text
    todo = text.index("▸ TodoWrite\n")
    assert text[todo:].split("\n")[1:4] == [
        "[>] Read current pyproject.toml configuration",
        "[ ] Update pyproject.toml to use Hatchling and fix module references",
        "[ ] Test UV tool installation",
    ]
    assert "▸ Edit /Users/dain/workspace/coderabbit-review-helper/pyproject.toml (diff)\n" in text
    assert '\n-requires = ["setuptools>=45", "wheel"]\n' in text
    assert '\n+requires = ["hatchling"]\n' in text
    assert "→" not in text.split("◂ Read output", 1)[1].split("──", 1)[0]  # no `  12→` prefixes
    assert "\x1b[" not in text and "\x1b[32m+requires" in format_show_human(
        show_session(SESSION), width=100, colour=True
    )
    command = (
        f"env -u COLUMNS -u LINES -u PAGER {sys.executable} -m funes.cli show cb2e607c; "
        "echo show-exited-$?; sleep 60"
    )
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "picker", "-x", "120", "-y", "30", command)
    screen = _wait(tmux, "session cb2e607c-c758-415a-8b45-c49e4631906a ·")
    assert screen.rstrip().splitlines()[-1].startswith(":")  # less waits: the session is paged
    colours = tmux("capture-pane", "-p", "-e", "-t", "picker")
    assert "\x1b[1m" in colours or "\x1b[32m" in colours or "\x1b[34m" in colours
    tmux("send-keys", "-t", "picker", "q")
    _wait(tmux, "show-exited-0")

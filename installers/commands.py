"""The command lines an agent is given to run funes (its MCP server, its per-turn hook), with
what their environment must carry, and how an installer tells its own hook from the user's."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def funes_command() -> list[str]:
    """The argv that runs funes, recorded in agent configs (`$FUNES_BIN` overrides)."""
    override = os.environ.get("FUNES_BIN", "").strip()
    if override:
        return [override]
    # The funes of the environment running this (a venv's bin need not be on the agent's PATH).
    beside = Path(sys.executable).with_name("funes")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("funes")
    return [found] if found else ["funes"]


def mcp_command(memory: str | None) -> list[str]:
    """The argv of the MCP server an agent starts: `funes mcp [MEMORY]`."""
    return [*funes_command(), "mcp", *([memory] if memory else [])]


def server_environment() -> dict[str, str]:
    """What an MCP server's environment must carry in: a non-default FUNES_HOME ({} when it is
    the default). Agents start their servers with a cleaned environment."""
    home = os.environ.get("FUNES_HOME", "").strip()
    return {"FUNES_HOME": home} if home else {}


def hook_command(agent: str) -> list[str]:
    """The argv an agent runs after each turn: `funes hook <agent>` (funes.integrations.hook)."""
    return [*funes_command(), "hook", agent]


def hook_shell_command(agent: str) -> str:
    """`funes hook <agent>` as one shell command line, carrying a non-default FUNES_HOME in
    (Gemini CLI and Qwen Code strip unknown variables from hooks when they sanitise their
    environment)."""
    home = os.environ.get("FUNES_HOME", "").strip()
    argv = hook_command(agent)
    return shlex.join(["env", f"FUNES_HOME={home}", *argv] if home else argv)


def runs_funes_hook(command: object, agent: str) -> bool:
    """Whether a hook's shell `command` runs `<funes> hook <agent>` (any funes path, with a
    FUNES_HOME or not): how an installer tells its own hook from the user's."""
    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    for i in range(1, len(argv) - 1):
        if argv[i] == "hook" and argv[i + 1] == agent and Path(argv[i - 1]).name == "funes":
            return True
    return argv[: len(hook_command(agent))] == hook_command(agent)

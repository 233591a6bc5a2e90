"""`funes doctor --deep`: start the MCP server an agent is configured to run (the command,
arguments and environment from the agent's own config) and list its tools over stdio, as the
agent does when a session starts. Catches a funes that is on disk but cannot start."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from typing import Any

from funes.inspect.check import Check

START_TIMEOUT_S = 90.0
TOOLS = {"recall", "get", "status"}


def configured_server(agent: str, said: str) -> dict[str, Any] | None:
    """{"command", "args", "env"} of the funes MCP server in what the agent's CLI printed
    (`claude plugin list --json`, `codex mcp list --json`, `gemini extensions list -o json`,
    `opencode debug config`, `copilot mcp list --json`); None for agents without one."""
    entry: dict[str, Any]
    try:
        if agent == "gemini":
            server = ((gemini_extension(said) or {}).get("mcpServers") or {}).get("funes")
        elif agent == "qwen":  # `qwen mcp list` shows no arguments: read what it reads
            from funes.installers.qwen import settings_path

            settings = json.loads(settings_path().read_text())
            server = (settings.get("mcpServers") or {}).get("funes")
        elif agent == "claude":
            entry = next((e for e in json.loads(said) if e.get("id") == "funes@funes"), {})
            server = (entry.get("mcpServers") or {}).get("funes")
        elif agent == "codex":
            entry = next((e for e in json.loads(said) if e.get("name") == "funes"), {})
            server = entry.get("transport")
        elif agent == "copilot":  # `copilot mcp list --json`
            server = (json.loads(said).get("mcpServers") or {}).get("funes")
        elif (
            agent == "opencode"
        ):  # `opencode debug config`: {"mcp": {"funes": {"command": [argv]}}}
            local = (json.loads(said).get("mcp") or {}).get("funes") or {}
            argv = local.get("command") or []
            env = local.get("environment")
            server = {"command": argv[0], "args": argv[1:], "env": env} if argv else None
        else:
            return None
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(server, dict) or not server.get("command"):
        return None
    return {
        "command": str(server["command"]),
        "args": [str(a) for a in server.get("args") or []],
        "env": {str(k): str(v) for k, v in (server.get("env") or {}).items()},
    }


async def _list_tools(server: dict[str, Any], errlog: Any) -> list[str]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=server["command"], args=server["args"], env={**os.environ, **server["env"]}
    )
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
    return sorted(tool.name for tool in listed.tools)


def _innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def server_check(agent: str, server: dict[str, Any]) -> Check:
    name = f"{agent}: mcp server"
    argv = " ".join([server["command"], *server["args"]])
    # What the server says on stderr is the reason a user needs; keep it off doctor's output.
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            tools = asyncio.run(asyncio.wait_for(_list_tools(server, errlog), START_TIMEOUT_S))
        except Exception as error:  # whatever stops it starting is what the user needs to see
            errlog.seek(0)
            said = [line.strip() for line in errlog.read().splitlines() if line.strip()]
            inner = _innermost(error)
            reason = said[-1] if said else f"{type(inner).__name__}: {inner}".rstrip(": ")
            return Check(
                name,
                False,
                f"`{argv}` does not start an MCP server ({reason[:200]})",
                f"run `{argv}` in a terminal to see why; `funes add {agent}` rewrites the command",
            )
    missing = TOOLS - set(tools)
    if missing:
        return Check(
            name,
            False,
            f"`{argv}` serves {', '.join(tools) or 'no tools'}, not {', '.join(sorted(missing))}",
            f"run `funes add {agent}` again to update its command",
        )
    return Check(name, True, f"`{argv}` starts and serves {', '.join(tools)}")


def _json_after_notices(said: str) -> Any:
    """The JSON a CLI printed after notices of its own (Gemini CLI warns about policy files
    first); ValueError when there is none."""
    lines = said.splitlines()
    for start, line in enumerate(lines):
        if line.startswith(("[", "{")):
            try:
                return json.loads("\n".join(lines[start:]))
            except ValueError:
                continue
    raise ValueError("no JSON in the output")


def gemini_extension(said: str) -> dict[str, Any] | None:
    """The funes extension in `gemini extensions list -o json`, when it is the one funes links."""
    from funes.installers.gemini import extension_dir

    ours = str(extension_dir())
    for entry in _json_after_notices(said):
        source = (entry.get("installMetadata") or {}).get("source")
        if entry.get("name") == "funes" and ours in (source, entry.get("path")):
            return entry
    return None

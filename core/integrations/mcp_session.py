"""One `funes mcp` session served inside the resident service.

The agent's MCP client talks to the MCP SDK's own server, built by `mcp_server.build_server`
with the same tools, exactly as `funes mcp` runs it in-process; only the stream is a Unix
socket (which `funes.integrations.thin_mcp` joins to the agent's stdio) instead of stdio. So
every answer (initialize, the tool list, each result, each error) is the one the SDK gives
in-process, and a new tool or parameter needs nothing here.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any


def serve_session(
    conn: socket.socket,
    memory: str | None,
    turn: Callable[[], AbstractContextManager[Any]],
) -> None:
    """Serve the session on `conn` until its client goes; each tool call runs inside `turn()`
    (the caller's folder and variables, its place among the service's other calls)."""
    import anyio
    import anyio.to_thread
    from mcp.server.stdio import stdio_server

    from funes.integrations.mcp_server import build_server

    server = build_server(memory)
    in_process = server.call_tool

    async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        held = turn()
        await anyio.to_thread.run_sync(held.__enter__)  # waits its turn off the event loop
        try:
            return await in_process(name, arguments, context)
        finally:
            held.__exit__(None, None, None)

    # The SDK's call handler calls the instance's `call_tool`: every call goes through here.
    server.call_tool = call_tool
    reader = conn.makefile("r", encoding="utf-8", errors="replace", newline="\n")
    writer = conn.makefile("w", encoding="utf-8", newline="\n")

    async def run() -> None:
        async with stdio_server(anyio.wrap_file(reader), anyio.wrap_file(writer)) as (read, write):
            # The SDK runs an MCPServer over given streams through its low-level server (what
            # `run_stdio_async` does over the process's own stdio).
            lowlevel = server._lowlevel_server
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        reader.close()
        writer.close()

"""`funes mcp`: serve the memory to an agent as MCP tools over stdio."""

from __future__ import annotations

import click


@click.command("mcp")
@click.argument("memory", required=False)
def command(memory: str | None) -> None:
    """Run the MCP server (stdio) with tools recall, get and status.

    MEMORY (default: the local memory) is what tools read unless a call names another.
    Agents start this themselves once `funes add <agent>` has registered it.
    """
    from funes.mcp_server import serve

    serve(memory)

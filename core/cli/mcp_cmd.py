"""`funes mcp`: serve the memory to an agent as MCP tools over stdio."""

from __future__ import annotations

import click


@click.command("mcp")
@click.argument("memories", nargs=-1, metavar="[MEMORY]...")
@click.option(
    "--memory",
    "memory_options",
    metavar="MEMORY",
    multiple=True,
    help="Another memory to read (repeatable), as the MEMORY arguments.",
)
def command(memories: tuple[str, ...], memory_options: tuple[str, ...]) -> None:
    """Run the MCP server (stdio) with tools recall, get and status.

    MEMORY (default: the local memory; several may be given, or comma-separated) is what tools
    read unless a call names another; recall merges them into one ranked list. The memory the
    working directory's repository declares (funes.toml) is read too.
    Agents start this themselves once `funes add <agent>` has registered it.

    The server is a small pipe to the memory's resident service, which holds the memory open
    for every session and CLI call (started on demand, gone after FUNES_WARM_IDLE_S idle
    seconds); FUNES_WARM_IDLE_S=0 makes it work in-process. `funes status` names the service.

    \b
      funes mcp
      funes mcp local acme/team-memory
    """
    from funes.integrations.thin_mcp import serve

    serve(",".join([*memories, *memory_options]) or None)

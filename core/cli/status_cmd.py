"""`funes status`: what is in a memory and which agents feed it."""

from __future__ import annotations

import json

import click


@click.command("status")
@click.argument("memory", required=False)
@click.option("--memory", "memory_opt", help="Memory to describe (local path, ORG/REPO, hf://…).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(memory: str | None, memory_opt: str | None, as_json: bool) -> None:
    """Show a memory's contents per agent, its model, backlog and wiring, and the resident
    service that answers recall and MCP calls (its pid, since when, memory, callers).

    \b
    Examples:
      funes status
      funes status --json
      funes status --memory my-org/team-memory
    """
    from funes.integrations.resident import render_service, service_summary
    from funes.integrations.status import memory_status, render_status

    info = memory_status(memory_opt or memory)
    service = service_summary()
    if as_json:
        click.echo(json.dumps(info | {"service": service}, indent=2, default=str))
        return
    click.echo(render_status(info))
    click.echo("\n".join(render_service(service)))

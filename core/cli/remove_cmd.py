"""`funes remove <agent>`: undo what `funes add` did; the memory is kept."""

from __future__ import annotations

import json

import click

from funes.cli.add_cmd import AGENT_CHOICES, _print_list


@click.command("remove")
@click.argument("agent", type=click.Choice(AGENT_CHOICES))
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
def command(agent: str, as_json: bool) -> None:
    """Unwire AGENT: remove the funes plugin, tools and hook from its config.

    The user's own entries in those files are kept, and so is the memory (what was indexed
    stays searchable with `funes recall`).
    """
    from funes.installers.base import ConfigError
    from funes.integrations.agents import remove_agent

    try:
        result = remove_agent(agent)
    except (ConfigError, RuntimeError) as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(f"funes is no longer wired into {agent} (the memory is kept)")
    _print_list("changed", result["changed"])
    _print_list("notes", result["notes"])

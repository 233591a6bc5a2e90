"""`funes add <agent> [MEMORY]`: index the agent's history and wire funes into it."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from funes.model import AGENTS

AGENT_CHOICES = list(AGENTS)


@click.command("add")
@click.argument("agent", type=click.Choice(AGENT_CHOICES))
@click.argument("memory", required=False)
@click.option("--yes", "-y", is_flag=True, help="Do not ask before indexing the history.")
@click.option(
    "--budget",
    type=float,
    default=60.0,
    metavar="SECONDS",
    show_default=True,
    callback=lambda ctx, param, value: _seconds(value),
    help="Time to spend indexing existing history now (0: none); hooks backfill the rest.",
)
@click.option(
    "--trust-hooks",
    is_flag=True,
    help="codex: trust the funes Stop hook now (as /hooks in the Codex TUI would).",
)
@click.option(
    "--read-only",
    is_flag=True,
    help="Add MEMORY to what AGENT reads (a team's, a project's); never written or pushed to.",
)
@click.option(
    "--keep-transcripts",
    is_flag=True,
    help="Keep AGENT's transcripts 3650 days: Claude Code's cleanupPeriodDays (default 30), "
    "Gemini CLI's sessionRetention.maxAge (default 30d), Hermes's sessions.retention_days when "
    "its prune is on; one value edited in place, and `funes remove` puts the old one back.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
def command(
    agent: str,
    memory: str | None,
    yes: bool,
    budget: float,
    trust_hooks: bool,
    read_only: bool,
    keep_transcripts: bool,
    as_json: bool,
) -> None:
    """Give AGENT recall/get tools and index each of its turns into the memory.

    \b
    Indexes AGENT's recent sessions first (within --budget), installs its plugin and per-turn
    hook, binds MEMORY (a local path, or ORG/NAME on the Hub) when given, and prints every file
    it changed. Run it again at any time: a second run changes nothing.
    \b
    It also says how long AGENT keeps its own transcripts (Claude Code deletes them after
    30 days unless cleanupPeriodDays says otherwise; what funes indexed stays). With
    --keep-transcripts, the agent keeps them 3650 days; the rest of its settings file is
    left byte for byte.
    \b
    Examples:
      funes add claude
      funes add claude --keep-transcripts
      funes add codex --trust-hooks
      funes add hermes acme/team-memory
      funes add claude acme/widgets-memory --read-only
    """
    from funes.installers.base import ConfigError
    from funes.integrations.agents import add_agent

    if budget > 0 and not yes and sys.stdin.isatty():
        click.confirm(
            f"funes will index your recent {agent} sessions (up to {budget:.0f} s). Proceed?",
            default=True,
            abort=True,
            err=True,
        )
    try:
        result = add_agent(
            agent,
            memory,
            budget_s=budget,
            progress=_progress(agent, quiet=as_json),
            trust_hooks=trust_hooks,
            read_only=read_only,
            keep_transcripts=keep_transcripts,
        )
    except (ConfigError, RuntimeError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(f"funes is wired into {agent} (memory: {result['memory']})")
    indexed = result["indexed"]
    if indexed and not indexed["units_total"]:
        click.echo(f"no {agent} history found to index yet; each new turn is indexed as it ends")
    elif indexed:
        click.echo(
            f"indexed {indexed['turns']} turns from {indexed['units_read']} transcript(s), "
            f"{indexed['chunks_added']} new chunks"
        )
    _print_list("changed", result["changed"])
    _print_list("notes", result["notes"])


def _seconds(value: float) -> float:
    """A budget is a number of seconds ≥ 0 (`inf`: the whole history); NaN is refused."""
    if value != value or value < 0:  # NaN is the one value not equal to itself
        raise click.BadParameter(f"must be a number of seconds ≥ 0, not {value}")
    return value


def _print_list(title: str, items: list[str]) -> None:
    if items:
        click.echo(f"{title}:")
        for item in items:
            click.echo("  " + item.replace("\n", "\n  "))


def _progress(agent: str, *, quiet: bool) -> Any:
    """Index progress on stderr: one line per transcript when not a terminal, else in place."""
    tty = sys.stderr.isatty()

    def report(event: str, info: dict[str, Any]) -> None:
        if quiet or event != "unit":
            return
        line = f"indexing {agent} history: {info['done']}/{info['units']} transcripts"
        click.echo(("\r" + line) if tty else line, err=True, nl=not tty)
        if tty and info["done"] == info["units"]:
            click.echo("", err=True)

    return report

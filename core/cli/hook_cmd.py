"""`funes hook <agent>`: what an agent runs after each turn (see funes.integrations.hook)."""

from __future__ import annotations

import sys

import click


@click.command(
    "hook",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("agent")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(agent: str, args: tuple[str, ...]) -> None:
    """Queue this turn for indexing and return at once (called by the agents' hooks).

    Reads the hook payload from stdin (or, for Codex `notify`, the last argument), records the
    transcript to index under $FUNES_HOME/queue/ and starts a background worker. Always exits 0:
    problems go to $FUNES_HOME/logs/hook.log.
    """
    from funes.integrations.hook import run_hook

    sys.exit(run_hook(agent.strip().lower(), list(args), sys.stdin))

"""`funes doctor`: is this installation healthy, and what to do when it is not."""

from __future__ import annotations

import sys

import click


@click.command("doctor")
@click.option("--fix", is_flag=True, help="Apply the safe repairs, then check again.")
@click.option(
    "--deep",
    is_flag=True,
    help="Also start each agent's configured MCP server and list its tools (slower).",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"ok", "checks": [...]} as JSON.')
def command(fix: bool, deep: bool, as_json: bool) -> None:
    """Check the memory, its indexes and disk use, the writer lock, the hook queue, the
    resident service (and any MCP server working without it), every wired agent (its files,
    whether the agent loads funes, whether its hook fires) and every bound Hub memory. Each
    failing check says what to do. Exit status 0 when all pass, 1 when one fails, 2 when
    none fails but some could not be confirmed (WARN: an agent CLI that is
    not here to ask, a hook that has not fired yet, transcript lines that could not be read).

    \b
    --fix applies only repairs that lose nothing:
      build a missing or unreadable index (full-text, vector, id) from the stored rows
      and fold new rows into them, fall back past a damaged newest version of the memory
      (`funes index` then restores its turns), make FUNES_HOME private to you,
      drop old versions of the memory, put failed hook entries back in the queue,
      start the queue worker.
    \b
    Examples:
      funes doctor
      funes doctor --fix
      funes doctor --deep       # start each agent's funes MCP server as the agent would
      funes doctor --json | jq '.checks[] | select(.ok | not)'
    """
    from funes.inspect.doctor import exit_status, format_human, format_json, run_checks

    checks = run_checks(fix=fix, deep=deep)
    click.echo((format_json if as_json else format_human)(checks), nl=False)
    sys.exit(exit_status(checks))

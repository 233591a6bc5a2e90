"""`funes sessions`: the sessions in a memory, newest first."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from funes.cli.options import filter_options, memory_option, reading_memory
from funes.safe_text import strip_controls

if TYPE_CHECKING:
    from funes.inspect.sessions import SessionSummary


@click.command("sessions")
@filter_options(
    "harness",
    "project",
    "since",
    "until",
    help={
        "since": "Only sessions active from this time on: 2026-01-31, ISO, or 7d/12h/2w.",
        "until": "Only sessions started before this time (a bare date includes it).",
    },
)
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(0),
    default=50,
    show_default=True,
    help="Show at most N sessions (0: all).",
)
@memory_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per session.")
@click.option("--plain", is_flag=True, help="Print the list even on a terminal (no picker).")
def command(
    harness: str | None,
    project: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    memory: str | None,
    as_json: bool,
    plain: bool,
) -> None:
    """List the sessions in the memory, newest first: start, agent, project, turns, chunks,
    session handle (the id's first 8 characters, more where another session shares them; `funes
    show` takes it as printed) and the first prompt.

    On a terminal it opens a picker: type to filter, ↑/↓ to move (the selected session is
    previewed below the list), Enter to choose it (its id and the commands for it are
    printed), Esc to cancel. Piped, or with --plain or --json, it prints the list.

    \b
    Examples:
      funes sessions
      funes sessions --harness codex --since 7d
      funes sessions --project shop --json
      funes show 60f3c85c          # one whole session
    """
    from funes.inspect.sessions import format_sessions_human, format_sessions_json, list_sessions

    with reading_memory():
        found = list_sessions(
            memory, harness=harness, project=project, since=since, until=until, limit=limit
        )
    if as_json:
        click.echo(strip_controls(format_sessions_json(found)), nl=False)
        return
    if not plain and _interactive() and found:
        _pick(found)
        return
    filtered = any((harness, project, since, until))
    more = bool(limit) and len(found) == limit
    click.echo(strip_controls(format_sessions_human(found, more=more, filtered=filtered)), nl=False)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty() and not os.environ.get("FUNES_NO_TUI")


def _pick(found: list[SessionSummary]) -> None:
    import shutil

    from funes.inspect.picker import preview, run_picker

    chosen = run_picker(found, "funes sessions")
    if chosen is None:
        click.echo("cancelled", err=True)
        return
    width = shutil.get_terminal_size((100, 24)).columns
    click.echo(strip_controls("\n".join(preview(chosen, width))))

"""`funes show SESSION`: one whole session, readably."""

from __future__ import annotations

import click

from funes.cli.options import memory_option, output_format, output_options, reading_memory
from funes.safe_text import strip_controls


@click.command("show")
@click.argument("session")
@memory_option
@output_options("the session")
def command(session: str, memory: str | None, as_json: bool, fmt: str | None) -> None:
    """Print every turn of SESSION (an id, or a unique prefix such as the handle `funes
    sessions` and `funes recall` show), in order, with its agent, project and times. A prefix
    several sessions share is refused with the handle of each. On a terminal the session is
    shown in colour in your pager ($PAGER, else `less -R`); piped, it is printed.

    \b
    Examples:
      funes show 60f3c85c
      funes show 60f3c85c --json
      funes show 60f3c85c --memory my-org/team-memory | less
    """
    from funes.inspect.sessions import (
        format_show_agent,
        format_show_human,
        format_show_json,
        show_session,
    )

    with reading_memory():
        view = show_session(session, memory)
    chosen = output_format(fmt, as_json)
    if chosen == "human" and _terminal():
        # On a terminal: coloured, in the pager (less -R), like `git log`.
        from funes.inspect.terminal import page, wants_colour

        if page(format_show_human(view, colour=wants_colour())):
            return
    render = {"json": format_show_json, "human": format_show_human, "agent": format_show_agent}[
        chosen
    ]
    click.echo(strip_controls(render(view)), nl=False)


def _terminal() -> bool:
    import os
    import sys

    return sys.stdout.isatty() and sys.stdin.isatty() and not os.environ.get("FUNES_NO_TUI")

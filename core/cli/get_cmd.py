"""`funes get`: the whole turn(s) a recalled passage came from."""

from __future__ import annotations

import click

from funes.cli.options import memories_option, output_format, output_options, reading_memory
from funes.retrieve.get import DEFAULT_WINDOW
from funes.safe_text import strip_controls


@click.command("get")
@click.argument("session_id")
@click.argument("turn_uuid")
@click.option(
    "--window",
    type=click.IntRange(0, 1000),
    default=DEFAULT_WINDOW,
    show_default=True,
    help="Also show the turns within N seqs of this one.",
)
@memories_option
@output_options("the turns")
def command(
    session_id: str,
    turn_uuid: str,
    window: int,
    memory: tuple[str, ...],
    as_json: bool,
    fmt: str | None,
) -> None:
    """Show whole turns of a session around TURN_UUID, reassembled from the memory.

    \b
    Example (the line `funes recall` prints under each passage):
      funes get 60f3c85c-ca6c-5274-ba4a-1671e1e1f8f2 79a3372d-da5c-5364-86a3-6a0f05086ff0
    """
    from funes.project.multi import get_many
    from funes.retrieve import (
        format_get_agent,
        format_get_human,
        format_get_json,
    )

    with reading_memory():
        result = get_many(memory, session_id, turn_uuid, window=window)
    render = {"json": format_get_json, "human": format_get_human, "agent": format_get_agent}[
        output_format(fmt, as_json)
    ]
    click.echo(strip_controls(render(result)), nl=False)

"""`funes timeline`: a session's course, one line a step."""

from __future__ import annotations

import click

from funes.cli.options import memories_option, reading_memory
from funes.retrieve.timeline import DEFAULT_AROUND, MAX_AROUND
from funes.safe_text import strip_controls


@click.command("timeline")
@click.argument("session_id")
@click.argument("turn", required=False)
@click.option(
    "--around",
    "around_turn",
    metavar="SEQ",
    default=None,
    help="The turn to centre on (the same as giving TURN).",
)
@click.option(
    "--steps",
    type=click.IntRange(0, MAX_AROUND),
    default=DEFAULT_AROUND,
    show_default=True,
    help="Steps shown each side of TURN.",
)
@click.option(
    "--has",
    metavar="TEXT",
    default=None,
    help="Only the steps that hold this text (case-insensitive, reasoning included), in order, "
    "each with the words around it: where it first came up, and each time after.",
)
@memories_option
@click.option("--json", "as_json", is_flag=True, help="Print the steps as JSON.")
def command(
    session_id: str,
    turn: str | None,
    around_turn: str | None,
    steps: int,
    has: str | None,
    memory: tuple[str, ...],
    as_json: bool,
) -> None:
    """Show the course of a past session in one line a step: what the user asked, each tool
    call with its key argument and outcome (ok, or its error line), what the assistant said
    and reasoned, and `(again seqN)` where the same file is touched again later.

    \b
    With TURN (a seq, as `funes recall` prints it, or a turn id), the steps around it
    (--steps each side); without, the whole session (a long one: its asks and replies).
    With --has, only the steps holding that text: "where did I first…", "did it survive".
    Examples:
      funes timeline cb2e607c 24
      funes timeline cb2e607c 24 --steps 5
      funes timeline cb2e607c
      funes timeline cb2e607c --has "retry_after"
    Then `funes get cb2e607c SEQ` reads one step.
    """
    import json
    from dataclasses import asdict

    from funes.project.multi import timeline_many
    from funes.retrieve.timeline import format_timeline

    with reading_memory():
        timeline = timeline_many(memory, session_id, turn or around_turn, around=steps, has=has)
    if as_json:
        click.echo(strip_controls(json.dumps(asdict(timeline), ensure_ascii=False, indent=2)))
        return
    text = format_timeline(timeline, memory[0] if len(memory) == 1 else "")
    click.echo(strip_controls(text), nl=False)

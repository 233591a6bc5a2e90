"""`funes get`: what a recalled place says, read as asked: the turn within a budget, the lines
that hold given words, one block, a line range, or everything (`--full`)."""

from __future__ import annotations

import click

from funes.cli.options import memories_option, output_format, output_options, reading_memory
from funes.retrieve.get import DEFAULT_WINDOW
from funes.retrieve.reading import CONTEXT_LINES, DEFAULT_MAX_CHARS, MAX_CONTEXT
from funes.safe_text import strip_controls


@click.command("get")
@click.argument("session_id")
@click.argument("turn")
# `--grep apiKey model` unquoted: click takes `apiKey` as the option's value and leaves `model`
# over. Those words are more words to grep for (agents write them so, and lost calls to the
# "unexpected extra argument" error); without --grep they are still an error.
@click.argument("more_words", nargs=-1, metavar="")
@click.option(
    "--window",
    type=click.IntRange(0, 1000),
    default=DEFAULT_WINDOW,
    show_default=True,
    help="Also show the turns within N seqs of this one (`funes timeline` shows a session's "
    "course in one line a step, for far fewer tokens).",
)
@click.option(
    "--grep",
    "greps",
    metavar="WORDS",
    multiple=True,
    help="Only the lines that hold these words together, as given, where a line does (A|B, or "
    "--grep given twice: either); else those that hold any one of them (and --context lines "
    "each side), with their line numbers.",
)
@click.option(
    "-C",
    "--context",
    type=click.IntRange(0, MAX_CONTEXT),
    default=CONTEXT_LINES,
    show_default=True,
    help="With --grep: lines shown each side of a line that holds a word (the fields under a "
    "matched key).",
)
@click.option(
    "--block",
    type=click.IntRange(1, None),
    default=None,
    help="Only block N (the `bN` the output numbers).",
)
@click.option("--lines", "line_range", metavar="A-B", default=None, help="Only lines A to B.")
@click.option(
    "--max-chars",
    type=click.IntRange(200, 10_000_000),
    default=DEFAULT_MAX_CHARS,
    show_default=True,
    help="Quote at most about N characters: longer blocks are cut, and a line says what was "
    "left out and the command that prints it.",
)
@click.option("--full", is_flag=True, help="Everything, whole: no budget.")
@memories_option
@output_options("the turns")
def command(
    session_id: str,
    turn: str,
    more_words: tuple[str, ...],
    window: int,
    greps: tuple[str, ...],
    context: int,
    block: int | None,
    line_range: str | None,
    max_chars: int,
    full: bool,
    memory: tuple[str, ...],
    as_json: bool,
    fmt: str | None,
) -> None:
    """Read a place of a past session: TURN (a seq, as `funes recall` prints it, or a turn
    id) of SESSION (an id or a unique prefix), reassembled from the memory.

    \b
    By default the turn is printed within about 2,000 characters: a longer block is cut and
    a `… lines A-B of bN not shown:` line gives the command that prints the rest.
    Examples (`funes recall` prints the first line under each place):
      funes get cb2e607c 24
      funes get cb2e607c 24 --grep "hatchling wheel"
      funes get cb2e607c 24 --grep before_compact -C 6
      funes get cb2e607c 24 --block 1 --lines 40-80
      funes get cb2e607c 24 --full
    `funes timeline cb2e607c 24` shows what came before and after, one line a step.
    """
    from funes.project.multi import get_many
    from funes.retrieve import format_get_agent, format_get_human, format_get_json
    from funes.retrieve.reading import Reading, parse_lines

    # `--grep A --grep B` is `A|B` (the second used to replace the first unsaid).
    grep = "|".join(g for g in greps if g.strip())
    if more_words and not grep:
        raise click.UsageError(
            f"unexpected extra argument(s): {' '.join(more_words)} (to read only the lines "
            "holding words, give them with --grep)"
        )
    grep = " ".join([grep, *more_words])
    try:
        lines = parse_lines(line_range) if line_range else None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--lines") from None
    with reading_memory():
        result = get_many(memory, session_id, turn, window=window)
    chosen = output_format(fmt, as_json)
    if chosen != "agent":
        render = {"json": format_get_json, "human": format_get_human}[chosen]
        click.echo(strip_controls(render(result)), nl=False)
        return
    reading = Reading(
        max_chars=None if full else max_chars,
        grep=grep,
        context=context,
        block=block,
        lines=lines,
        handle=session_id,
        window=window,
        memory=memory[0] if len(memory) == 1 else "",
    )
    click.echo(strip_controls(format_get_agent(result, reading)), nl=False)

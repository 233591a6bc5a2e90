"""`funes catchup SESSION`: a paste-ready digest of a past session, in its own words."""

from __future__ import annotations

import json

import click

from funes.cli.options import memory_option, reading_memory
from funes.safe_text import strip_controls


@click.command("catchup")
@click.argument("session")
@click.option(
    "--max-tokens",
    type=click.IntRange(200),
    default=1500,
    show_default=True,
    help="Fit the digest into about N tokens (characters / 4).",
)
@memory_option
@click.option("--json", "as_json", is_flag=True, help="Print the digest's items as JSON.")
def command(session: str, max_tokens: int, memory: str | None, as_json: bool) -> None:
    """Print a compact digest of SESSION to paste into a fresh session: the session's own
    compaction summary, what was asked (the latest asks first), what was concluded, the errors
    and what followed them, the files changed, the last plan or todo list and, when it stopped
    mid-work, the step it was on; each quoted with the `funes get` line that prints the rest.

    \b
    Nothing is summarised by a model: every line is the session's own words. The first and the
    latest prompt, the final answer, the summary, the plan and where it stopped come first;
    acknowledgements ("ok", "👍") and look-ups that found nothing are left out; what does not
    fit --max-tokens is counted in a note.
    \b
    Examples:
      funes catchup 60f3c85c
      funes catchup 60f3c85c --max-tokens 800 | pbcopy
      funes catchup 60f3c85c --json
    """
    from funes.retrieve.catchup import build_catchup, catchup_json, format_catchup

    with reading_memory():
        digest = build_catchup(session, memory, max_tokens=max_tokens)
    if as_json:
        click.echo(strip_controls(json.dumps(catchup_json(digest), ensure_ascii=False, indent=2)))
        return
    click.echo(strip_controls(format_catchup(digest, max_tokens)), nl=False)

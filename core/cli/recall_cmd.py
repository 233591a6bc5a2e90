"""`funes recall`: the passages of the memory that answer a question, with provenance."""

from __future__ import annotations

import click

from funes.cli.options import filter_options, memories_option, output_format, output_options
from funes.retrieve.pipeline import DEFAULT_CANDIDATES, DEFAULT_K, DEFAULT_NEIGHBORS
from funes.retrieve.recency import DEFAULT_HALF_LIFE_DAYS
from funes.safe_text import strip_controls


# A query is words the past session used, and those include a command's flags (`ls -la`,
# `rm -rf`): a dash-word that is not an option of recall is one of the query's words. A
# `--word` that is not an option is an error all the same (a misspelt filter must not turn
# into search words): quote it inside a phrase to search for it.
@click.command("recall", context_settings={"ignore_unknown_options": True})
@click.argument("query", nargs=-1)
@click.option(
    "-k",
    "--k",
    "k",
    type=click.IntRange(1, 500),
    default=None,
    help=f"Passages to return.  [default: {DEFAULT_K}; with --max-tokens, as many as fit]",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(1, 1_000_000),
    help="Pack the best passages into about N tokens (characters / 4) of agent output.",
)
@click.option(
    "--candidates",
    type=click.IntRange(1, 1000),
    default=DEFAULT_CANDIDATES,
    show_default=True,
    help="How deep each search goes before re-ranking.",
)
@filter_options()
@click.option(
    "--neighbors",
    type=click.IntRange(0, 2),
    default=DEFAULT_NEIGHBORS,
    show_default=True,
    help="Neighbours per hit (at most 2): the prompt that started its turn, then the reply "
    "that concluded it.",
)
@click.option(
    "--half-life",
    type=float,
    default=DEFAULT_HALF_LIFE_DAYS,
    show_default=True,
    help="Recency half-life in days (a gentle, bounded preference); 0 turns it off.",
)
@memories_option
@output_options("the result")
def command(
    query: tuple[str, ...],
    k: int | None,
    max_tokens: int | None,
    candidates: int,
    neighbors: int,
    half_life: float,
    memory: tuple[str, ...],
    as_json: bool,
    fmt: str | None,
    **filters: str | None,
) -> None:
    """Recall past agent work: passages ranked by relevance, each naming agent, time,
    session and turn.

    \b
    Examples:
      funes recall why did we drop the redis cache
      funes recall "flaky test in ci" --harness codex --since 30d
      funes recall migration plan --project funes --json
      funes recall "which flag fixed the flaky test" --max-tokens 800
      funes recall default model --has 'getModel("'
    Then `funes get SESSION TURN` shows the whole turn a passage came from.
    """
    from funes.index.store import MemoryNotFound
    from funes.project.multi import recall_many
    from funes.retrieve import RecallError, format_agent, format_human, format_json
    from funes.retrieve.budget import hits_for_budget

    _refuse_unknown_long_options(query)
    if not query and not (filters.get("has") or "").strip():
        raise click.UsageError("say what to recall: words, or --has TEXT for an exact text")
    if k is None:
        k = hits_for_budget(max_tokens, DEFAULT_K) if max_tokens else DEFAULT_K
    try:
        result = recall_many(
            memory,
            " ".join(query),
            k=k,
            candidates=candidates,
            neighbors=neighbors,
            half_life_days=half_life,
            **filters,
        )
    except (ValueError, RecallError) as error:
        raise click.ClickException(str(error)) from None
    except MemoryNotFound:
        raise click.ClickException(
            "no memory to recall from yet — run `funes add <agent>` (or `funes index`) first"
        ) from None
    chosen = output_format(fmt, as_json)
    if chosen == "agent":
        click.echo(strip_controls(format_agent(result, max_tokens=max_tokens)), nl=False)
        return
    render = {"json": format_json, "human": format_human}[chosen]
    click.echo(strip_controls(render(result)), nl=False)


def _refuse_unknown_long_options(query: tuple[str, ...]) -> None:
    """A `--name` word that click let through as part of the query: a misspelt option."""
    import difflib

    for word in query:
        if word.startswith("--") and len(word) > 2 and word[2:].replace("-", "").isalnum():
            known = [o for p in click.get_current_context().command.params for o in p.opts]
            close = difflib.get_close_matches(word, known, n=1)
            hint = f" Did you mean {close[0]}?" if close else ""
            raise click.UsageError(
                f"No such option: {word}.{hint} To search for it, put it in a quoted phrase "
                f'with the words around it (funes recall "... {word}").'
            )

"""Options shared by the read commands, so they read and teach the same everywhere."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

MEMORY_HELP = "Memory to read: local (default), a folder, ORG/REPO or hf://…"


def memory_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--memory", metavar="MEMORY", help=MEMORY_HELP)(func)


MEMORIES_HELP = (
    "Memory to read: local, a folder, ORG/REPO or hf://…; repeat it (or comma-separate) to "
    "read several at once. Default: local, plus the memory this repository declares "
    "(funes.toml)."
)


def memories_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """`--memory`, repeatable: a tuple of specs (empty: the default memories)."""
    return click.option("--memory", "memory", metavar="MEMORY", multiple=True, help=MEMORIES_HELP)(
        func
    )


def filter_options(
    *names: str, help: dict[str, str] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The recall filters' options (`names`, default all), as `Filters` declares them, in its
    order; `help` rewords some for a command whose filter means something narrower."""
    from funes.retrieve.filters import FILTERS

    chosen = [spec for spec in FILTERS if not names or spec.name in names]
    reworded = help or {}

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for spec in reversed(chosen):  # click lists options in decorator order, top first
            choice = click.Choice(list(spec.choices)) if spec.choices else None
            text = reworded.get(spec.name, spec.help)
            func = click.option(spec.flag, spec.name, type=choice, help=text)(func)
        return func

    return decorate


def output_options(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--json` (print `what` as JSON) and `--format agent|human`; read them with
    `output_format`."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        func = click.option(
            "--format",
            "fmt",
            type=click.Choice(["agent", "human"]),
            help="Output format (default: human on a terminal, agent otherwise).",
        )(func)
        return click.option("--json", "as_json", is_flag=True, help=f"Print {what} as JSON.")(func)

    return decorate


def output_format(fmt: str | None, as_json: bool) -> str:
    """json | human | agent: `--json` wins, then `--format`, else human on a terminal."""
    if as_json:
        return "json"
    return fmt or ("human" if sys.stdout.isatty() else "agent")


NO_MEMORY_YET = "no memory to read yet — run `funes add <agent>` (or `funes index`) first"


@contextmanager
def reading_memory() -> Iterator[None]:
    """A read's expected failures as one error line: no memory yet, an unknown session or
    turn, a bad filter value."""
    from funes.index.store import MemoryNotFound
    from funes.retrieve.get import TurnNotFound

    try:
        yield
    except TurnNotFound as error:
        raise click.ClickException(str(error)) from None
    except MemoryNotFound:
        raise click.ClickException(NO_MEMORY_YET) from None
    except ValueError as error:
        raise click.BadParameter(str(error)) from None

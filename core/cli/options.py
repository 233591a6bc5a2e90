"""Options shared by the read commands, so they read and teach the same everywhere."""

from __future__ import annotations

import sys
from collections.abc import Callable
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


def format_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["agent", "human"]),
        help="Output format (default: human on a terminal, agent otherwise).",
    )(func)


def output_format(fmt: str | None, as_json: bool) -> str:
    """json | human | agent: `--json` wins, then `--format`, else human on a terminal."""
    if as_json:
        return "json"
    return fmt or ("human" if sys.stdout.isatty() else "agent")

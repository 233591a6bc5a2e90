"""`funes index`: read new turns from the agents' transcripts into the local memory."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from funes.model import HARNESS_CHOICES


@click.command("index")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--harness", type=click.Choice(list(HARNESS_CHOICES)), help="Only this agent's transcripts."
)
@click.option(
    "--budget",
    type=float,
    default=None,
    metavar="SECONDS",
    help="With no PATH: stop starting new sessions after this long (default 60); "
    "the rest is left as backlog for later runs.",
)
@click.option(
    "--all", "everything", is_flag=True, help="With no PATH: index everything, no budget."
)
@click.option(
    "--model",
    default=None,
    metavar="NAME",
    help="Embedding model for a new memory: a model2vec folder or a Hub id already in the "
    "local cache (e.g. minishlab/potion-retrieval-32M). Default: the bundled model. "
    "An existing memory keeps its own.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run's report as JSON.")
def command(
    paths: tuple[Path, ...],
    harness: str | None,
    budget: float | None,
    everything: bool,
    model: str | None,
    as_json: bool,
) -> None:
    """Index agent transcripts into the local memory (new turns only).

    \b
    With PATH (files or folders): read everything under them.
    Without: sweep every agent's transcripts on this machine, newest first (those
    their agent deletes within 7 days before all: Claude Code's cleanupPeriodDays, ...),
    within a time budget; a later run finishes the backlog.
    \b
    Examples:
      funes index                       # all agents, 60 s budget
      funes index --all                 # all agents, no budget
      funes index --harness codex
      funes index ~/.claude/projects/my-project
    """
    from funes.index.embed import ModelNotAvailable
    from funes.index.indexer import index
    from funes.index.lock import LockBusy
    from funes.index.store import ModelMismatch
    from funes.model import normalise_harness
    from funes.traces.base import summarise_warnings

    facet = normalise_harness(harness) if harness else None
    reporter = _Progress(enabled=sys.stderr.isatty() and not as_json)
    try:
        report = index(
            list(paths) if paths else None,
            harness=facet,
            budget_s=budget,
            everything=everything,
            progress=reporter,
            model=model,
        )
    except (FileNotFoundError, ValueError, LockBusy, ModelMismatch, ModelNotAvailable) as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        reporter.close()
    for warning in summarise_warnings(report.warnings):
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
        return
    line = (
        f"indexed {report.chunks_added} new chunks from {report.turns} turns "
        f"({report.units_read} files read, {report.units_unchanged} unchanged) "
        f"in {report.elapsed_s:.1f}s"
    )
    if report.redactions:
        line += f"; {report.redactions} secrets redacted"
    click.echo(line)
    if report.backlog:
        click.echo(
            f"backlog: {len(report.backlog)} files left — run `funes index` again, "
            "or `funes index --all`"
        )


class _Progress:
    """A progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None

    def __call__(self, event: str, info: dict[str, Any]) -> None:
        if not self.enabled:
            return
        if event == "start" and info["units"]:
            self.bar = click.progressbar(length=info["units"], label="indexing", file=sys.stderr)
            self.bar.__enter__()
        elif event == "unit" and self.bar is not None:
            self.bar.update(1)
        elif event == "maintain":
            self.close()
            click.echo(f"{info['step']}…", err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None

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
    # 20 rows print ~3,700 characters: an agent reading the list pays for every row (50 were
    # 9,264 characters, a fifth of a benchmark question's output).
    default=20,
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
    show` takes it as printed) and the first real request (slash commands and wrappers skipped).

    On a terminal it opens a picker over every session: type words to find a session by its
    title, folder or agent, or by anything said in it (the memory's full-text index); ↑/↓
    move, and the selected session is previewed below the list (its last prompt, final
    answer, files changed and where it stopped). Enter resumes it in its agent (as `funes
    resume` does), Ctrl-O reads it in the pager, Ctrl-Y copies the command that resumes it,
    Esc cancels. Piped, or with --plain or --json, it prints the list (--limit applies).

    \b
    Examples:
      funes sessions
      funes sessions --harness codex --since 7d
      funes sessions --project shop --json
      funes show 60f3c85c          # one whole session
    """
    from funes.inspect.sessions import format_sessions_human, format_sessions_json, list_sessions

    picking = not (plain or as_json) and _interactive()
    source = click.get_current_context().get_parameter_source("limit")
    if picking and source is click.core.ParameterSource.DEFAULT:
        limit = 0  # the picker searches every session
    with reading_memory():
        found = list_sessions(
            memory, harness=harness, project=project, since=since, until=until, limit=limit
        )
    if as_json:
        click.echo(strip_controls(format_sessions_json(found)), nl=False)
        return
    if picking and found:
        _pick([s for s in found if not s.warmup], memory)
        return
    if not found and project and not _project_exists(memory, project):
        # Not "nothing matches": the project is misnamed, which another filter cannot fix.
        click.echo(
            strip_controls(
                f"no session's folder or repo contains {project!r} "
                "(`funes sessions --plain` lists every session with its project)\n"
            ),
            nl=False,
        )
        return
    filtered = any((harness, project, since, until))
    more = bool(limit) and len(found) == limit
    click.echo(strip_controls(format_sessions_human(found, more=more, filtered=filtered)), nl=False)


def _project_exists(memory: str | None, project: str) -> bool:
    from funes.retrieve.exact import names_nothing
    from funes.sync.memory import open_memory

    with reading_memory():
        return not names_nothing(open_memory(memory).store, "project", project)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty() and not os.environ.get("FUNES_NO_TUI")


def _pick(found: list[SessionSummary], memory: str | None) -> None:
    from funes.inspect.picker import RESUME, run_picker
    from funes.inspect.resume import plan_resume, run_resume
    from funes.inspect.sessions import format_show_human, sessions_saying, show_session
    from funes.inspect.terminal import wants_colour
    from funes.retrieve.catchup import Catchup, build_catchup
    from funes.retrieve.subagents import describe
    from funes.sync.memory import open_memory

    store = open_memory(memory).store

    def digest(s: SessionSummary) -> Catchup:
        if s.parent and not s.task:  # a subagent's preview names its task
            about = describe(store, s.session_id)
            s.task = about.task if about else ""
        return build_catchup(s.session_id, memory)

    picker = run_picker(
        found,
        "funes sessions",
        search=lambda query: sessions_saying(store, query),
        digest=digest,
        read=lambda s: format_show_human(show_session(s.session_id, memory), colour=wants_colour()),
    )
    chosen = picker.chosen
    if chosen is None or picker.action != RESUME:
        click.echo("cancelled", err=True)
        return
    plan = plan_resume(chosen.session_id, memory)
    for note in plan.notes:
        click.echo(f"note: {note}", err=True)
    if not plan.runnable:
        for problem in plan.problems:
            click.echo(f"cannot resume: {problem}", err=True)
        click.echo(plan.command_line())
        raise SystemExit(1)
    click.echo(f"resuming {chosen.handle or chosen.session_id}: {plan.command_line()}", err=True)
    run_resume(plan)

"""`funes resume SESSION`: reopen a past session in the agent that wrote it."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import click

from funes.cli.options import memory_option, reading_memory

if TYPE_CHECKING:
    from funes.inspect.resume import ResumePlan


@click.command("resume")
@click.argument("session")
@memory_option
@click.option(
    "--print",
    "--dry-run",
    "print_only",
    is_flag=True,
    help="Print the command (from the session's folder) instead of running it.",
)
@click.option(
    "--here", is_flag=True, help="Run from the current directory, not the session's recorded one."
)
@click.option(
    "--prompt",
    metavar="TEXT",
    help="Send TEXT to the resumed session without opening the agent's interface "
    "(claude -p, codex exec resume, pi -p, hermes -q) and print the answer.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON; run nothing.")
def command(
    session: str,
    memory: str | None,
    print_only: bool,
    here: bool,
    prompt: str | None,
    as_json: bool,
) -> None:
    """Reopen SESSION (an id or the handle `funes sessions` shows) in the agent that wrote it —
    `claude --resume`, `codex resume`, `pi --session`, `hermes chat --resume`, `qwen --resume`,
    `copilot --resume`, `opencode --session` — from its recorded working directory (Gemini CLI
    resumes only by its own list's index: funes says how).

    \b
    A session whose transcript its agent deleted (Claude Code after cleanupPeriodDays, Hermes's
    prune, ...) or that was recorded on another machine is continued from the memory: its agent
    starts in the recorded folder with the session's catch-up as its first prompt.
    When it cannot run here (the folder is gone, the agent is not installed, or no agent wrote
    it), it says why and prints the command it would need.
    \b
    Examples:
      funes resume 60f3c85c
      funes resume 60f3c85c --print       # just the command
      funes resume 60f3c85c --here        # its folder was moved: run from this one
      funes resume 60f3c85c --prompt "what was left to do?"
    """
    from funes.inspect.resume import plan_resume, run_resume

    with reading_memory():
        plan = plan_resume(session, memory, here=os.getcwd() if here else None, prompt=prompt)
    if as_json:
        click.echo(json.dumps(plan.as_dict(), indent=2))
        return
    for note in plan.notes:
        click.echo(f"note: {note}", err=True)
    if plan.from_memory:
        click.echo(f"note: {_continuing(plan)}", err=True)
    if print_only:
        if not plan.argv:  # nothing that would work as printed
            raise click.ClickException("\n".join(f"cannot resume: {p}" for p in plan.problems))
        click.echo(plan.command_line())
        for problem in plan.problems:
            click.echo(f"note: {problem}", err=True)
        return
    if not plan.runnable:
        if plan.here_helps and _ask_to_run_here(plan.workdir):
            run_resume(plan_resume(session, memory, here=os.getcwd(), prompt=prompt))
        lines = [f"cannot resume: {p}" for p in plan.problems]
        if plan.argv:
            lines.append(f"the command: {_shown(plan)}")
        raise click.ClickException("\n".join(lines))
    click.echo(f"resuming {plan.session_id[:8]}: {_shown(plan)}", err=True)
    run_resume(plan)


def _continuing(plan: ResumePlan) -> str:
    agent = plan.argv[0] if plan.argv else "its agent"
    return (
        f"{plan.from_memory}. funes continues the session from its memory: {agent} "
        f"starts in {plan.workdir or 'the current folder'} with the session's catch-up as its "
        f"first prompt (`funes catchup {plan.session_id[:8]}` shows it)"
    )


def _shown(plan: ResumePlan) -> str:
    """The command for people: a catch-up prompt (pages long) is named, not printed
    (`--print` prints it whole)."""
    if not plan.from_memory:
        return plan.command_line()
    from dataclasses import replace

    named = [arg if len(arg) < 200 else "<its catch-up>" for arg in plan.argv]
    return replace(plan, argv=named).command_line()


def _ask_to_run_here(workdir: str) -> bool:
    """On a terminal: offer to reopen the session from the current directory instead."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    question = f"{workdir} no longer exists. Reopen the session from {os.getcwd()}?"
    return click.confirm(question, default=False)

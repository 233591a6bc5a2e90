"""`funes resume SESSION`: reopen a past session in the agent that wrote it."""

from __future__ import annotations

import json
import os
import sys

import click

from funes.cli.options import memory_option, reading_memory


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
    When it cannot run here (the folder is gone, the agent is not installed, the transcript is
    on another machine, or no agent wrote it), it says why and prints the command it would need.
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
    if print_only:
        click.echo(plan.command_line() if plan.argv else "")
        for problem in plan.problems:
            click.echo(f"note: {problem}", err=True)
        return
    if not plan.runnable:
        only_folder = plan.workdir_gone and len(plan.problems) == 1
        if only_folder and _ask_to_run_here(plan.workdir):
            run_resume(plan_resume(session, memory, here=os.getcwd(), prompt=prompt))
        lines = [f"cannot resume: {p}" for p in plan.problems]
        if plan.argv:
            lines.append(f"the command: {plan.command_line()}")
        raise click.ClickException("\n".join(lines))
    click.echo(f"resuming {plan.session_id[:8]}: {plan.command_line()}", err=True)
    run_resume(plan)


def _ask_to_run_here(workdir: str) -> bool:
    """On a terminal: offer to reopen the session from the current directory instead."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    question = f"{workdir} no longer exists. Reopen the session from {os.getcwd()}?"
    return click.confirm(question, default=False)

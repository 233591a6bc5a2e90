"""`funes forget`: take sessions, a project folder or a period out of a memory, for good."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from funes.project.forget import ForgetPlan


@click.command("forget")
@click.option("--session", metavar="ID", help="A session id (or a unique prefix of one).")
@click.option(
    "--project",
    metavar="PATH",
    help="A folder: every session recorded in it (or below), now and in the future.",
)
@click.option(
    "--before", metavar="DATE", help="Everything before 2026-01-31, an ISO time, or an age (90d)."
)
@click.option(
    "--memory",
    metavar="MEMORY",
    help="Memory to forget from: local (default), a folder, or ORG/REPO (its copy here; "
    "the next push publishes the tombstone).",
)
@click.option("-y", "--yes", is_flag=True, help="Do not ask; required when not on a terminal.")
@click.option("--dry-run", is_flag=True, help="Only say what would be forgotten.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def command(
    session: str | None,
    project: str | None,
    before: str | None,
    memory: str | None,
    yes: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Remove a session, a project folder or everything before a date from a memory, and
    leave a tombstone so re-indexing the transcripts never brings it back.

    \b
    The rows are deleted from disk (not only marked), with the curation notes and resume
    points that name them. --session takes the sessions that came out of it too, to any
    depth (subagents, a compression chain), also ones split off later.
    --project also keeps future sessions in that folder out of the memory.
    A running index is waited for (up to 2 minutes); a forget that cannot
    finish changes nothing. A --session no row has is an error.
    Transcripts are never touched. A pushed memory drops the rows for every reader at your
    next `funes push ORG/REPO`; `--purge-history` erases them from the Hub's history too.
    \b
    Examples:
      funes forget --session 60f3c85c
      funes forget --project ~/clients/acme --yes
      funes forget --before 2025-06-01 --dry-run
    """
    from funes.index.lock import LockBusy
    from funes.project.forget import ForgetError, forget, plan

    try:
        if dry_run or not yes:
            found = plan(memory, session=session, project=project, before=before)
            if dry_run:
                _report(as_json, found, _summary(found), None, dry_run=True)
                return
            if not sys.stdin.isatty():
                raise click.ClickException(
                    f"would forget {_summary(found)}; nothing changed — re-run with --yes to go "
                    "ahead"
                )
            click.confirm(
                f"Forget {_summary(found)}? This cannot be undone", default=False, abort=True
            )
        # Planned again under the writer lock: what an index added meanwhile goes too.
        found, tombstone = forget(memory, session=session, project=project, before=before)
    except ForgetError as error:
        raise click.ClickException(str(error)) from None
    except LockBusy:
        raise click.ClickException(
            "another funes process (an index run?) is still writing the memory; nothing was "
            "forgotten — run forget again once it is done"
        ) from None
    _report(as_json, found, _summary(found), str(tombstone), dry_run=False)


def _summary(found: ForgetPlan) -> str:
    tomb = found.tombstone
    what = {"session": "session", "project": "folder", "before": "everything before"}[tomb.kind]
    return (
        f"{found.rows} chunk(s) from {len(found.sessions)} session(s) in {found.label} "
        f"({what} {tomb.value})"
    )


def _report(
    as_json: bool, found: ForgetPlan, summary: str, tombstone: str | None, *, dry_run: bool
) -> None:
    tomb = found.tombstone
    if as_json:
        payload = {
            "memory": found.label,
            "kind": tomb.kind,
            "value": tomb.value,
            "chunks": found.rows,
            "sessions": found.sessions,
            "tombstone": tombstone,
            "dry_run": dry_run,
        }
        click.echo(json.dumps(payload, indent=2))
        return
    if dry_run:
        click.echo(f"would forget {summary}")
        for sid in found.sessions[:20]:
            click.echo(f"  {sid}")
        if len(found.sessions) > 20:
            click.echo(f"  … and {len(found.sessions) - 20} more")
        return
    click.echo(f"forgot {summary}")
    click.echo(f"  tombstone: {tombstone} (re-indexing will not bring it back)")
    if found.remote:
        click.echo(f"  run `funes push {found.remote}` to drop it for every reader")
    else:
        click.echo(
            "  a memory you pushed still holds it until your next `funes push ORG/REPO` "
            "(add --purge-history to erase it from the Hub's history)"
        )

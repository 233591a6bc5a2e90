"""`funes curate MEMORY --project OWNER/NAME`: choose which sessions a project memory publishes."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click


@click.command("curate")
@click.argument("memory")
@click.option("--project", metavar="OWNER/NAME", help="The repository this memory is named for.")
@click.option("--include", multiple=True, metavar="SESSION", help="Publish this session (repeat).")
@click.option("--exclude", multiple=True, metavar="SESSION", help="Never publish it (repeat).")
@click.option("--list", "list_all", is_flag=True, help="List every session with its decision.")
@click.option("--push", "push_now", is_flag=True, help="Push the included sessions afterwards.")
@click.option("-y", "--yes", is_flag=True, help="With --push: create the dataset without asking.")
@click.option("--json", "as_json", is_flag=True, help="Print the sessions and decisions as JSON.")
def command(
    memory: str,
    project: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    list_all: bool,
    push_now: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """Review the sessions of a repository and choose which its project memory MEMORY
    (ORG/REPO on the Hub) publishes: whole sessions, included or excluded one by one.

    \b
    Candidates are your local sessions that ran in a checkout of the project (its git remote).
    On a terminal, a list opens: → include, ← exclude, Enter saves (q, Esc or Ctrl-C cancel,
    changing nothing); then it offers to push (default: no).
    Otherwise, or with --include/--exclude/--list/--json, it works as plain text for scripts.
    `funes push MEMORY` then publishes only included sessions; a session that grew after it
    was included is held back until you review it again. Decisions are kept in
    $FUNES_HOME/curation/ (plain text, one line per session).
    \b
    Examples:
      funes curate acme/widgets-memory --project acme/widgets
      funes curate acme/widgets-memory --include 60f3c85c --exclude 9a1b2c3d
      funes curate acme/widgets-memory --list --json
    """
    from funes.index.store import ChunkStore, MemoryNotFound
    from funes.memory_spec import parse_remote_spec
    from funes.project.curate import (
        CurateError,
        candidates,
        check_project,
        load_decisions,
        resolve_session,
    )
    from funes.retrieve.handles import unique_prefixes

    try:
        uri = parse_remote_spec(memory).uri
        store = ChunkStore.open()
    except ValueError as error:
        raise click.ClickException(f"{error} — a project memory lives on the Hub") from None
    except MemoryNotFound:
        raise click.ClickException("no local memory yet — run `funes add <agent>` first") from None
    decisions = load_decisions(uri)
    notes = [f"ignored line in {decisions.path.name}: {line.strip()}" for line in decisions.skipped]
    try:
        named = _named_on_hub(memory, notes)
        chosen = project or decisions.project or named
        if not chosen:
            raise CurateError("name the project this memory is for: --project OWNER/NAME")
        chosen = check_project(chosen, store)
        for other in (decisions.project, named):
            if other and other != chosen:
                raise CurateError(f"{uri} is the project memory of {other}, not {chosen}")
        decisions.project = chosen
        found = candidates(store, chosen, decisions)
        decided: dict[str, str] = {}
        for prefix, decision in [
            *((p, "include") for p in include),
            *((p, "exclude") for p in exclude),
        ]:
            candidate = resolve_session(found, prefix)
            if decided.setdefault(candidate.session_id, decision) != decision:
                raise CurateError(
                    f"session {candidate.session_id[:8]} is given to both --include and "
                    "--exclude: pick one"
                )
            candidate.decision = decision
            candidate.reviewed_chunks = candidate.chunks if decision == "include" else None
            decisions.decide(candidate, decision)
    except CurateError as error:
        raise click.ClickException(str(error)) from None
    decisions.save()
    for note in notes:
        click.echo(f"note: {note}", err=True)

    interactive = not (include or exclude or list_all or as_json or push_now)
    if (
        interactive
        and sys.stdin.isatty()
        and sys.stdout.isatty()
        and not os.environ.get("FUNES_NO_TUI")
    ):
        from funes.project.review import Review, run_review

        review = Review(found, decisions)
        run_review(review, f"funes curate {uri} — project {chosen}")
        if review.cancelled:
            click.echo("cancelled: no decision changed")
            return
        included = sum(c.decision == "include" and not c.stale for c in found)
        click.echo(_summary(uri, chosen, found))
        if included and click.confirm(
            f"Publish {included} session(s) to {uri} now (created private if new)?", default=False
        ):
            _push(memory, yes=True)
        return

    if as_json:
        click.echo(json.dumps(_as_json(uri, chosen, decisions, found), indent=2))
    else:
        if include or exclude:
            click.echo(
                f"project memory of {chosen} — recorded {len(include)} include, "
                f"{len(exclude)} exclude"
            )
        shown = found if list_all else [c for c in found if c.pending]
        # Named as `--include`/`--exclude` take them: a prefix no other candidate shares.
        handles = unique_prefixes(c.session_id for c in found)
        for candidate in shown:
            click.echo(_row(candidate, handles[candidate.session_id], marks=list_all))
        click.echo(_summary(uri, chosen, found))
    if push_now:
        _push(memory, yes=yes)


def _named_on_hub(memory: str, notes: list[str]) -> str:
    """The project the Hub dataset is already named for ("" when none, new or unreachable)."""
    import tempfile
    from pathlib import Path

    from funes.memory_spec import parse_remote_spec
    from funes.project.curate import read_manifest
    from funes.sync.hub import HubError, HubOffline, HubRemote, RepoMissing

    spec = parse_remote_spec(memory)
    remote = HubRemote(spec)
    try:
        head = remote.head()
        with tempfile.TemporaryDirectory() as tmp:
            return read_manifest(remote, spec, head, Path(tmp))
    except RepoMissing:
        return ""
    except HubOffline:
        notes.append(f"{spec.uri} unreachable: decisions are recorded here, checked at push")
        return ""
    except HubError as error:
        notes.append(str(error))
        return ""


def _row(candidate: Any, handle: str, *, marks: bool) -> str:
    mark = "!" if candidate.stale else {"include": "+", "exclude": "-", "": " "}[candidate.decision]
    head = f"[{mark}] " if marks else "  "
    where = candidate.workdir or "-"
    return (
        f"{head}{candidate.date} {handle}  {where}  chunks={candidate.chunks}  "
        f"{candidate.prompt[:100]}"
    )


def _summary(uri: str, project: str, found: list[Any]) -> str:
    included = sum(c.decision == "include" and not c.stale for c in found)
    excluded = sum(c.decision == "exclude" for c in found)
    stale = sum(c.stale for c in found)
    pending = sum(c.pending for c in found)
    line = (
        f"{uri}: project memory of {project} — {len(found)} session(s): {included} included, "
        f"{excluded} excluded, {pending} pending review"
    )
    if stale:
        line += f" ({stale} grew since they were included)"
    return line


def _as_json(uri: str, project: str, decisions: Any, found: list[Any]) -> dict[str, Any]:
    return {
        "memory": uri,
        "project": project,
        "decisions_file": str(decisions.path),
        "sessions": [
            {
                "session_id": c.session_id,
                "date": c.first_ts[:10],
                "last": c.last_ts[:10],
                "harness": c.harness,
                "workdir": c.workdir,
                "chunks": c.chunks,
                "subagents": c.subagents,
                "prompt": c.prompt,
                "decision": c.decision or "pending",
                "stale": c.stale,
            }
            for c in found
        ],
        "pending_review": sum(c.pending for c in found),
    }


def _push(memory: str, *, yes: bool) -> None:
    from funes.cli.push_cmd import command as push_command

    args = [memory, *(["--yes"] if yes else [])]
    push_command.main(args=args, standalone_mode=False)

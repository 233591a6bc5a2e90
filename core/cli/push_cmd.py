"""`funes push ORG/REPO`: publish the local memory to a Hugging Face dataset you own."""

from __future__ import annotations

import json
import sys

import click


@click.command("push")
@click.argument("memory")
@click.option("-y", "--yes", is_flag=True, help="Create the dataset (private) without asking.")
@click.option(
    "--purge-history",
    is_flag=True,
    help="Then rewrite the dataset without forgotten rows and squash its history (see "
    "SECURITY.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def command(memory: str, yes: bool, purge_history: bool, as_json: bool) -> None:
    """Publish the local memory's new chunks to MEMORY (ORG/REPO or hf://datasets/ORG/REPO).

    \b
    Only chunks the remote lacks are uploaded, in one commit; a concurrent push from another
    machine is merged, never overwritten. A missing dataset is created private (asks first, or
    --yes); an existing one keeps its visibility. Every block is scanned for secrets first and
    held back if anything is found (run `funes scrub`, then push again).
    Rows you took back with `funes forget` are published as a tombstone every reader honours;
    --purge-history also rewrites the shards without them and squashes the dataset's history,
    so they are gone from the Hub (other branches and pull requests keep their own history).
    A project memory (`funes curate`) publishes only the sessions included there.
    Exit status: 0 published or up to date, 2 everything new was held back for secrets.
    """
    from funes.sync.gate import ScannerFailed
    from funes.sync.hub import HubError
    from funes.sync.push import push

    def confirm(question: str) -> bool:
        return sys.stdin.isatty() and click.confirm(question, default=False)

    def progress(message: str) -> None:
        if not as_json:
            click.echo(f"  {message}", err=True)

    try:
        report = push(
            memory, yes=yes, confirm=confirm, progress=progress, purge_history=purge_history
        )
    except ScannerFailed as err:
        raise click.ClickException(f"nothing published: {err}") from None
    except (HubError, ValueError) as err:
        raise click.ClickException(str(err)) from None

    held = report.held
    if as_json:
        click.echo(
            json.dumps(
                {
                    "memory": report.uri,
                    "pushed": report.pushed,
                    "commit": report.commit,
                    "remote_chunks": report.remote_chunks,
                    "created_repo": report.created_repo,
                    "card": report.card,
                    "bytes_uploaded": report.bytes_uploaded,
                    "project": report.project or None,
                    "pending_review": report.pending_review,
                    "tombstoned": report.tombstoned,
                    "purged": vars(report.purged) if report.purged else None,
                    "held_back": {
                        "rows": held.rows,
                        "blocks": held.blocks,
                        "by_kind": dict(held.by_kind),
                        "sessions": sorted(held.sessions),
                        "rows_for_paths": held.path_rows,
                    },
                    "paths_redacted": held.paths_redacted,
                },
                indent=2,
            )
        )
    elif report.pushed or report.tombstoned:
        click.echo(f"{report.uri}: pushed {report.pushed} chunks (commit {report.commit})")
        if report.tombstoned:
            click.echo(
                f"  published a tombstone: readers drop {report.tombstoned} forgotten chunks"
            )
        if report.card in ("created", "refreshed"):
            click.echo(f"  dataset card {report.card}")
    elif not held.rows:
        click.echo(f"{report.uri}: already up to date ({report.remote_chunks} chunks)")
    if report.project and not as_json:
        click.echo(f"  project memory of {report.project}")
        if report.pending_review:
            click.echo(
                f"  pending review: {report.pending_review} session(s) — run "
                f"`funes curate {memory}`"
            )
    if report.purged and not as_json:
        purged = report.purged
        click.echo(
            f"  history purged: {purged.shards_removed} shard(s) rewritten as one "
            f"({purged.rows_kept} rows), history squashed, {purged.lfs_deleted} stored file(s) "
            f"deleted (commit {purged.commit})"
        )
    if held.paths_redacted and not as_json:
        click.echo(
            f"  {held.paths_redacted} path(s) held a secret: published redacted "
            "(the local memory keeps them as recorded)"
        )
    if held.rows and not as_json:
        sessions = ", ".join(sorted(s[:8] for s in held.sessions))
        verb = "nothing published — held back" if report.everything_held else "⚠ held back"
        text_rows = held.rows - held.path_rows
        if text_rows:
            click.echo(
                f"{report.uri}: {verb} {text_rows} row(s) in {held.blocks} block(s) with "
                f"secrets ({held.summary()}; sessions {sessions}) — run `funes scrub`, then "
                "push again"
            )
        if held.path_rows:
            click.echo(
                f"{report.uri}: {verb if not text_rows else '⚠ held back'} {held.path_rows} "
                f"row(s) whose working directory or transcript path holds a secret that cannot "
                f"be redacted ({held.summary()}; sessions {sessions}) — `funes forget --session "
                "ID` takes such a session out for good"
            )
    if report.everything_held:
        sys.exit(2)

"""`funes scrub`: remove secrets from the local memory's stored rows."""

from __future__ import annotations

import click


@click.command("scrub")
def command() -> None:
    """Re-scan the local memory and remove secrets from rows already stored.

    \b
    A block with a secret is redacted when the redaction scans clean afterwards, else dropped.
    The files kept beside the rows (resume points, curation notes) are cleaned as the rows are.
    Run it when `funes push` held rows back, then push again. Transcripts and remote memories
    are never changed.
    """
    from funes.index.lock import LockBusy
    from funes.index.store import MemoryNotFound
    from funes.sync.gate import ScannerFailed
    from funes.sync.scrub import scrub

    try:
        report = scrub()
    except MemoryNotFound:
        raise click.ClickException("no local memory to scrub") from None
    except (LockBusy, ScannerFailed) as err:
        raise click.ClickException(str(err)) from None
    if report.clean:
        click.echo(f"memory is already clean ({report.rows} chunks; resume points and notes too)")
        return
    if report.files:
        click.echo(
            f"cleaned {len(report.files)} file(s) that held what the memory does not "
            "(resume points, curation notes): credentials redacted, private spans out"
        )
    if not report.redacted_blocks and not report.dropped_blocks:
        return
    line = (
        f"scrubbed: redacted {report.redacted_secrets} secret(s) in {report.redacted_blocks} "
        f"block(s)"
    )
    if report.dropped_blocks:
        line += (
            f"; dropped {report.dropped_rows} row(s) in {report.dropped_blocks} block(s) that "
            "couldn't be safely redacted"
        )
    kinds = ", ".join(f"{k}×{n}" for k, n in sorted(report.by_kind.items()))
    click.echo(f"{line} ({kinds})")

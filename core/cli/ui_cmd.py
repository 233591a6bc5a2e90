"""`funes ui`: a local web page to search and browse the memory."""

from __future__ import annotations

import click

from funes.cli.options import MEMORY_HELP


@click.command("ui")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free port).",
)
@click.option("--no-open", is_flag=True, help="Do not open a browser; just print the URL.")
@click.option(
    "--memory",
    "memories",
    metavar="MEMORY",
    multiple=True,
    help=MEMORY_HELP + " (one per page: run one `funes ui` per memory).",
)
def command(port: int, no_open: bool, memories: tuple[str, ...]) -> None:
    """Serve a web page over the memory on 127.0.0.1 only, and open it in a browser.

    The first line printed is the page's URL; it carries a random token, and nothing is served
    without it. The browser is handed a redirect page only you can read, never the token
    itself (a command line is visible to every user in `ps`). The page searches with recall
    (filters, provenance, the passage, the whole turn), browses sessions as a timeline, shows
    counts per agent and project, activity over time, what a bound Hub memory has and lacks,
    and redactions by kind. Its searches and pages are answered by the memory's resident
    service (the one `funes recall` and `funes mcp` use; started if none runs), so this process
    stays small; when no service can start, the page works in-process and says so. Ctrl-C
    stops it.

    \b
    Examples:
      funes ui
      funes ui --port 8765 --no-open
      funes ui --memory my-org/team-memory
    """
    import shutil
    import signal
    import sys
    import threading
    import webbrowser

    from funes.inspect.webui import UIServer, launch_page, warm_up

    memory = _one_memory(memories)
    try:
        server = UIServer(memory, port)
    except OSError as error:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {error.strerror}") from None
    click.echo(server.url)
    click.echo("serving on 127.0.0.1 only; Ctrl-C stops it", err=True)
    if server.resident.in_process:
        threading.Thread(target=warm_up, args=(memory,), daemon=True).start()
    else:
        server.resident.start()  # the memory's resident service answers the page's calls
    # Stopped by `kill` as by Ctrl-C: unwind, so the redirect page is deleted.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    page = None
    if not no_open:
        # The browser's command line is public (`ps`): give it a page only this user can read.
        page = launch_page(server.url)
        webbrowser.open(page.as_uri())
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if page is not None:
            shutil.rmtree(page.parent, ignore_errors=True)


def _one_memory(memories: tuple[str, ...]) -> str | None:
    """The one memory the page serves. Its sessions, overview and `get` links belong to one
    memory, so several are refused at start rather than the last silently winning."""
    named = [part.strip() for spec in memories for part in spec.split(",") if part.strip()]
    if len(named) > 1:
        raise click.UsageError(
            f"funes ui serves one memory at a time, got {len(named)} ({', '.join(named)}): "
            "run one `funes ui --memory MEMORY` per memory"
        )
    return named[0] if named else None

"""The `funes` console script.

`funes hook <agent>` runs after every agent turn and must return within ~150 ms including
interpreter start-up, so it is dispatched here before click and the command modules are
imported; `funes recall` and `funes get` go to a warm funes process of the same memory when one
is running (`funes.integrations.warm`); everything else goes to the click application in
`funes.cli`.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    import os

    from funes.paths import PRIVATE_UMASK

    os.umask(PRIVATE_UMASK)  # whatever funes creates is its owner's only (the hook's queue too)
    argv = sys.argv[1:]
    if len(argv) >= 2 and argv[0] == "hook" and argv[1] not in ("-h", "--help"):
        from funes.integrations.hook import run_hook

        sys.exit(run_hook(argv[1].strip().lower(), argv[2:], sys.stdin))
    if argv and argv[0] in ("recall", "get"):
        from funes.integrations import warm

        if warm.eligible(argv):
            outcome = warm.forward(argv)
            if outcome.exit_code is not None:
                sys.exit(outcome.exit_code)
            if outcome.socket is not None:
                sys.exit(_run_then_start_service(outcome.socket))
    from funes.cli import main as cli_main

    cli_main()


def _run_then_start_service(socket: Path) -> int:
    """Answer in-process as always; once the answer is out, and only if it succeeded, start
    the warm service that answers the next call."""
    from funes.cli import main as cli_main
    from funes.integrations import warm

    try:
        cli_main()
    except SystemExit as done:
        if done.code not in (None, 0):
            raise
    sys.stdout.flush()
    warm.start_service(socket)
    return 0


if __name__ == "__main__":
    main()

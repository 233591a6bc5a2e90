"""The `funes` console script.

`funes hook <agent>` runs after every agent turn and must return within ~150 ms including
interpreter start-up, so it is dispatched here before click and the command modules are
imported; everything else goes to the click application in `funes.cli`.
"""

from __future__ import annotations

import sys


def main() -> None:
    import os

    from funes.paths import PRIVATE_UMASK

    os.umask(PRIVATE_UMASK)  # whatever funes creates is its owner's only (the hook's queue too)
    argv = sys.argv[1:]
    if len(argv) >= 2 and argv[0] == "hook" and argv[1] not in ("-h", "--help"):
        from funes.integrations.hook import run_hook

        sys.exit(run_hook(argv[1].strip().lower(), argv[2:], sys.stdin))
    from funes.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()

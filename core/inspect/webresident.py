"""The page's API calls answered by the memory's resident service (`funes.integrations.warm`),
as `funes recall`, `funes get` and `funes mcp` are: the page's own process stays small (no
lancedb, numpy or model), its first search finds the memory already open, and the answers are
the ones `funes.inspect.webapi` gives in-process, byte for byte.

A service that is not there (not started yet, exited when idle, killed, its code upgraded) is
started and waited for, up to START_WAIT_S; only when none answers by then does the page answer
in-process, from then on, and it says so once on stderr. A call the service declines (a
folder gone, a bug's traceback) is answered in-process, that call only.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

from funes.integrations import warm

# How long a call waits for a service just started before the page works in-process.
START_WAIT_S = 15.0
# How often a service is started again while waiting (one may have lost a race to another).
RESTART_S = 2.0


class Resident:
    """Where the page's API calls go: the resident service while one can run, else this
    process (`in_process`, with `why`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # FUNES_WARM_IDLE_S=0: no service wanted; or no socket can be reached from here.
        self.in_process = warm.idle_seconds() <= 0 or not warm.reachable(warm.socket_path())
        self.why = "no resident service wanted or reachable" if self.in_process else ""

    def start(self) -> None:
        """Start the service ahead of the first search (it loads the memory meanwhile)."""
        if not self.in_process:
            warm.start_service(warm.socket_path())

    def answer(self, route: str, memory: str | None, params: dict[str, str]) -> tuple[int, Any]:
        """(HTTP status, JSON body) for API call `route`, from the service when it can."""
        if not self.in_process:
            answered = self._forwarded(route, memory, params)
            if answered is not None:
                return answered
        from funes.inspect.webapi import answer

        return answer(route, memory, params)

    def _forwarded(
        self, route: str, memory: str | None, params: dict[str, str]
    ) -> tuple[int, Any] | None:
        sock = warm.socket_path()
        request: dict[str, Any] = {"kind": "ui", "client": "ui", "route": route, "memory": memory}
        request |= {"params": params, **warm.call_context()}
        deadline = time.monotonic() + START_WAIT_S
        next_start = 0.0
        while True:
            try:
                header, body = warm.ask(sock, request)
                status, data = header.get("http"), json.loads(body)
                return (status, data) if isinstance(status, int) else None
            except warm.Declined as declined:
                if declined.status != "stale":
                    return None  # this call only: the service answers the next ones
            except (OSError, ValueError):
                pass  # none there yet, or it went away mid-call: start one
            if time.monotonic() >= deadline:
                self._give_up(f"no resident service answered within {START_WAIT_S:.0f} s")
                return None
            if time.monotonic() >= next_start:
                warm.start_service(sock)
                next_start = time.monotonic() + RESTART_S
            time.sleep(0.05)

    def _give_up(self, why: str) -> None:
        with self._lock:
            if self.in_process:
                return
            self.in_process, self.why = True, why
        print(f"funes ui: {why}; the page works in-process", file=sys.stderr, flush=True)

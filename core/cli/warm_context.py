"""What lets the resident service run several callers' calls at once in one process.

A call runs with its caller's working directory and variables, and prints to its caller's
streams. Streams are per thread here (`Router`, installed as sys.stdout and sys.stderr). The
working directory and the environment are the process's, so `Gate` lets calls that share them
run together and makes a call with others wait until the calls before it are done, then sets
them; in between the service sits in `/` with its own variables (it never keeps a caller's
folder busy, and a folder deleted under it costs nothing).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

IDLE_FOLDER = "/"


class Router:
    """A stream that writes to the stream its thread was given, else to the default one.

    It has no `__weakref__` on purpose: click caches the stream it wraps per stream object, and
    a cache keyed on this one would hand one caller's encoding decisions to the next."""

    __slots__ = ("_default", "_local")

    def __init__(self, default: TextIO) -> None:
        object.__setattr__(self, "_default", default)
        object.__setattr__(self, "_local", threading.local())

    def target(self) -> Any:
        return getattr(self._local, "stream", None) or self._default

    @contextmanager
    def bound(self, stream: Any) -> Iterator[None]:
        """This thread's writes go to `stream` for the duration."""
        previous = getattr(self._local, "stream", None)
        self._local.stream = stream
        try:
            yield
        finally:
            self._local.stream = previous

    def write(self, text: str) -> int:
        return int(self.target().write(text))

    def flush(self) -> None:
        self.target().flush()

    def isatty(self) -> bool:
        return bool(self.target().isatty())

    def fileno(self) -> int:
        return int(self.target().fileno())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target(), name)


Context = tuple[str, tuple[tuple[str, str], ...]]


class Gate:
    """Admits calls in arrival order, at most `limit` at once; calls with the same context
    (folder and variables) run together, a call with another one waits for the running ones
    to finish."""

    def __init__(self, managed: Callable[[str], bool], limit: int) -> None:
        self._limit = limit  # calls running at once
        self._cond = threading.Condition()
        self._current: Context | None = None
        self._active = 0
        self._waiting: list[tuple[object, Context]] = []
        self._managed = managed  # the variables a call brings
        self._base = {k: v for k, v in os.environ.items() if managed(k)}

    @staticmethod
    def context(cwd: str, env: Mapping[str, str]) -> Context:
        return cwd, tuple(sorted(env.items()))

    @contextmanager
    def entered(self, context: Context) -> Iterator[None]:
        """Run the body in `context`; OSError (its folder is gone) when it cannot be set."""
        self.acquire(context)
        try:
            yield
        finally:
            self.release()

    def acquire(self, context: Context) -> None:
        """Wait for this call's turn and set its context; OSError (and no turn taken) when
        its folder is gone."""
        ticket = object()
        with self._cond:
            self._waiting.append((ticket, context))
            try:
                while not self._may_enter(ticket, context):
                    self._cond.wait()
            finally:
                self._waiting = [w for w in self._waiting if w[0] is not ticket]
                self._cond.notify_all()
            if self._active == 0 and self._current != context:
                self._apply(context)  # raises OSError before anyone counts as running
                self._current = context
            self._active += 1

    def release(self) -> None:
        with self._cond:
            self._active -= 1
            if self._active == 0:
                self._rest()
            self._cond.notify_all()

    @property
    def active(self) -> int:
        return self._active

    def _may_enter(self, ticket: object, context: Context) -> bool:
        if self._active >= self._limit or (self._active and context != self._current):
            return False
        for waiting, theirs in self._waiting:
            if waiting is ticket:
                return True
            if theirs != context:
                return False  # someone with another context came first
        return True

    def _apply(self, context: Context) -> None:
        cwd, env = context
        try:
            os.chdir(cwd)
        except OSError:
            self._rest()
            raise
        self._set_variables(dict(env))

    def _rest(self) -> None:
        """Back to the service's own folder and variables."""
        self._current = None
        os.chdir(IDLE_FOLDER)
        self._set_variables(self._base)

    def _set_variables(self, wanted: Mapping[str, str]) -> None:
        for name in [n for n in os.environ if self._managed(n) and n not in wanted]:
            del os.environ[name]
        os.environ.update(wanted)

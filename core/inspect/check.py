"""A doctor check: what one probe found, and the safe repair `--fix` may apply.

Its own module so the probes (`checks_*`) and the doctor that runs them both import it, and
neither imports the other's caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""  # what to do about it, for people ("" when there is nothing to do)
    # The safe repair `--fix` applies; returns what it did, one line.
    repair: Callable[[], str] | None = field(default=None, repr=False, compare=False)
    # Not ok, but not known to be broken either: could not be confirmed (`ok` is False too).
    warn: bool = False

    @property
    def status(self) -> str:
        return "ok" if self.ok else "warn" if self.warn else "fail"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "status": self.status,
            "detail": self.detail,
            "fix": self.fix,
        }


def warning(name: str, detail: str, fix: str = "") -> Check:
    """A check that could not be confirmed: shown as WARN, never counted as a pass."""
    return Check(name, False, detail, fix, warn=True)

"""One module per agent that patches that agent's config to load funes.

Every installer follows `funes.installers.base`: atomic writes, a backup of each file before
its first change, idempotent (a second run changes no byte), the user's keys, comments and
formatting kept, and a malformed config refused with file and line, untouched.
"""

from __future__ import annotations

import importlib

from funes.model import AGENTS

__all__ = ["AGENTS", "installer_for"]


def installer_for(agent: str):  # -> funes.installers.base.Installer
    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}: expected one of {', '.join(AGENTS)}")
    module = importlib.import_module(f"funes.installers.{agent}")
    return module.INSTALLER

"""The files each agent loads to use funes (a Claude Code marketplace, a pi extension, a Hermes
plugin, ...). Installers in `funes.installers` copy or reference them; see `plugin_dir`."""

from __future__ import annotations

from pathlib import Path


def plugin_dir(agent: str) -> Path:
    """The folder of `agent`'s plugin files inside the installed package."""
    return Path(__file__).parent / agent

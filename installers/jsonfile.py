"""A JSON config file funes adds entries to and takes them out of again (opencode, Copilot).

Read as an object (a file with comments, which both agents accept, is refused with its line:
funes could not write the comments back); written back with its own indentation and key order;
on remove, when what is left equals the user's file before funes first changed it (its
`.funes-backup`), that file comes back byte for byte, and a file funes created is deleted once
nothing of the user's is in it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from funes.installers.base import ConfigError, read_config_text


def line_of_key(text: str, key: str) -> int | None:
    """The first line where `key` is written as a JSON key, for pointing at it in an error."""
    import re

    written = re.compile(re.escape(json.dumps(key)) + r"\s*:")
    for number, line in enumerate(text.splitlines(), start=1):
        if written.search(line):
            return number
    return None


def read_object(path: Path) -> tuple[dict[str, Any], str]:
    """The parsed object and its text ({} and "" when absent); ConfigError otherwise."""
    text = read_config_text(path)
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"not plain JSON ({error.msg}; funes cannot keep comments)"
        raise ConfigError(path, error.lineno, problem) from None
    if not isinstance(data, dict):
        raise ConfigError(path, 1, "the top level is not a JSON object")
    return data, text


def require(path: Path, text: str, value: Any, shape: type, name: str, key: str) -> None:
    """ConfigError naming `name` (and the line of `key`) unless `value` is absent or a `shape`."""
    if value is not None and not isinstance(value, shape):
        what = "an object" if shape is dict else "a list"
        raise ConfigError(path, line_of_key(text, key), f'"{name}" is not {what}')


def fingerprint(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


def _backup(path: Path) -> Path:
    return path.with_name(path.name + ".funes-backup")


def restored_text(path: Path, data: dict[str, Any]) -> str | None:
    """The user's file as it was before funes first changed it, when it holds exactly `data`."""
    try:
        text = _backup(path).read_text(encoding="utf-8")
        return text if json.loads(text) == data else None
    except (OSError, ValueError):
        return None


def delete_if_created(path: Path, data: dict[str, Any]) -> bool:
    """Delete `path` when funes created it (no backup of a user original) and `data` is empty."""
    if data or _backup(path).exists() or not path.exists():
        return False
    path.unlink()
    return True

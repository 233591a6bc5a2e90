"""A JSON config file funes adds entries to and takes them out of again (opencode, Copilot,
Qwen Code, pi).

Read as an object (a file with comments, which opencode, Copilot and Qwen Code accept, is refused
with its line: funes could not write the comments back); written back with its own indentation
and key order;
on remove, when what is left equals the user's file before funes first changed it (its
`.funes-backup`), that file comes back byte for byte, and a file funes created is deleted once
nothing of the user's is in it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from funes.installers.base import (
    ConfigError,
    InstallReport,
    backup_path,
    dump_json_like,
    read_config_text,
)

# What a refusal of text that is not JSON says: (the line to name, the problem), from the text
# and the parser's error.
Unparsed = Callable[[str, json.JSONDecodeError], tuple[int | None, str]]


def line_of_key(text: str, key: str) -> int | None:
    """The first line where `key` is written as a JSON key, for pointing at it in an error."""
    import re

    written = re.compile(re.escape(json.dumps(key)) + r"\s*:")
    for number, line in enumerate(text.splitlines(), start=1):
        if written.search(line):
            return number
    return None


def not_plain_json(text: str, error: json.JSONDecodeError) -> tuple[int | None, str]:
    """For an agent that reads JSON with comments: whatever failed, comments may be why."""
    return error.lineno, f"not plain JSON ({error.msg}; funes cannot keep comments)"


def not_valid_json(text: str, error: json.JSONDecodeError) -> tuple[int | None, str]:
    return error.lineno, f"not valid JSON ({error.msg})"


def read_object(path: Path, unparsed: Unparsed = not_plain_json) -> tuple[dict[str, Any], str]:
    """The parsed object and its text ({} and "" when absent); ConfigError otherwise (for text
    that is not JSON, saying what `unparsed` says)."""
    text = read_config_text(path)
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        line, problem = unparsed(text, error)
        raise ConfigError(path, line, problem) from None
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


def restored_text(path: Path, data: dict[str, Any]) -> str | None:
    """The user's file as it was before funes first changed it, when it holds exactly `data`."""
    try:
        text = backup_path(path).read_bytes().decode("utf-8")  # its own line endings
        return text if json.loads(text) == data else None
    except (OSError, ValueError):
        return None


def delete_if_created(path: Path, data: dict[str, Any]) -> bool:
    """Delete `path` when funes created it (no backup of a user original) and `data` is empty."""
    if data or backup_path(path).exists() or not path.exists():
        return False
    path.unlink()
    return True


def write_back(report: InstallReport, path: Path, data: dict[str, Any], original: str) -> None:
    """Write what is left of `path` after taking funes's entries out: the user's own bytes when
    that is all it holds, no file when funes created it, else `data` in `original`'s layout."""
    text = restored_text(path, data) or dump_json_like(data, original)
    if delete_if_created(path, data):
        report.changed.append(path)
    else:
        report.write(path, text)

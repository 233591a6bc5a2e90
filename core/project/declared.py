"""The project memory a repository declares, so every agent working in a checkout recalls it.

A repository names it in a file it commits, at its root (or in any folder above the working
directory, up to the checkout's root):

    # funes.toml
    memory = "acme/widgets-memory"            # or a list: ["acme/widgets-memory", "acme/docs"]

or, in a Python project, the same key under `[tool.funes]` in pyproject.toml. A value is a Hub
memory (`ORG/REPO`, `hf://datasets/…`) or a folder inside the repository, relative to the file (a
memory committed with the code); a path leading out of it is refused, so a repository cannot
point an agent at another place on your disk (symbolic links are followed before the check, and a
declared folder holding one is refused). `FUNES_NO_REPO_MEMORY=1` turns the lookup off.

The declared memories are added to the memories read when none is named (`--memory` or a call's
`memory` argument replaces them): a new clone needs nothing but `funes add <agent>` once.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

FILE = "funes.toml"
PYPROJECT = "pyproject.toml"


@dataclass(frozen=True)
class Declared:
    memories: tuple[str, ...]
    source: Path  # the file that declared them


class DeclarationError(ValueError):
    """The declaring file is malformed; the message names it."""


def find_declared(start: Path | None = None) -> Declared | None:
    """The nearest declaration from `start` (default: the working directory) up to the root of
    its git checkout; None when there is none (or the lookup is turned off)."""
    if os.environ.get("FUNES_NO_REPO_MEMORY", "").strip() not in ("", "0"):
        return None
    try:
        folder = (start or Path.cwd()).absolute()
    except OSError:  # the working directory was removed
        return None
    for candidate in [folder, *folder.parents]:
        for name in (FILE, PYPROJECT):
            path = candidate / name
            if path.is_file():
                memories = _read(path)
                if memories is not None:
                    return Declared(memories, path)
        if (candidate / ".git").exists():
            return None  # the checkout's root: never look outside the repository
    return None


def _read(path: Path) -> tuple[str, ...] | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        if path.name == PYPROJECT:
            return None  # a broken pyproject is not ours to report
        raise DeclarationError(f"{path}: not valid TOML ({error})") from None
    table = data if path.name == FILE else data.get("tool", {}).get("funes")
    if not isinstance(table, dict) or "memory" not in table:
        return None
    value = table["memory"]
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
        raise DeclarationError(f"{path}: `memory` must be a memory name or a list of them")
    return tuple(_resolve(v.strip(), path) for v in values)


def _resolve(value: str, path: Path) -> str:
    from funes.memory_spec import is_remote_spec

    if value.startswith("hf://") or (is_remote_spec(value) and not (path.parent / value).exists()):
        return value
    outside = DeclarationError(
        f"{path}: memory {value!r} is outside the repository; use ORG/REPO or a folder inside it"
    )
    if value.startswith(("/", "~")):
        raise outside
    # Resolved, symlinks followed: a link committed in the repository (`memory -> ~/.funes`)
    # must not lead out of it, and the folder opened is the one checked.
    here = path.parent.resolve()
    folder = (here / value).resolve()
    if not folder.is_relative_to(here):
        raise outside
    link = _symlink_inside(folder)
    if link is not None:
        raise DeclarationError(
            f"{path}: memory {value!r} holds a symbolic link ({link}); a declared memory must "
            "be plain files inside the repository"
        )
    return str(folder)


def _symlink_inside(folder: Path) -> Path | None:
    """The first symbolic link under `folder` (a data file linked to one outside it), if any."""
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            if (Path(root) / name).is_symlink():
                return Path(root) / name
    return None

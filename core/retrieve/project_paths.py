"""Sessions that worked on a project from another folder.

`--project X` keeps the sessions whose recorded folder or git repo contains X. A session can
work on a project it was not started in: "give me an overview of /workspace/claude-code-log",
asked from `/src/experiments/claude_p`, and the subagent that answered it, which read every
file of that project (agentic benchmark, h-c073: the answer was in such a subagent's read of
`cli.py`, and `--project claude-code-log` left it out in 5 of 20 runs). Such a session opens
with a request that names a path through one of the project's folders (a folder, of those
recorded, whose name holds X). Those sessions count as the project's too.

Only the opening request counts: a path named later in a session is often a passing look at
another project. A word without a path ("the shop's checkout") does not count: a project's
name is often an everyday word.
"""

from __future__ import annotations

import re
from typing import Any

from funes.retrieve.filters import holds_text_sql, quote_sql

# One memory version's answers: a recall makes several searches under the same filter, and the
# resident service answers many recalls between index runs. Scanning every opening request
# costs about 0.3 s at 333k chunks.
_CACHE: dict[tuple[str, int, str], tuple[str, ...]] = {}
_CACHE_SIZE = 64
# Past this many, the list would cost the filter more than it adds (a folder name that many
# sessions elsewhere point into is not one project's).
MAX_SESSIONS = 500
# A path: a separator, then no space or quote.
_PATH = re.compile(r"[~.\w:-]*[/\\][^\s'\"`()\[\]<>]+")
_SEPARATOR = re.compile(r"[/\\]")
# Punctuation that ends a sentence after a path, not the path.
_TRAILING = ".,:;!?"


def project_folders(workdirs: list[str], project: str) -> set[str]:
    """The names of the folders (of `workdirs`: recorded folders and repo names) that hold
    `project`, lowercased: `claude-code-log` of `/Users/dain/workspace/claude-code-log/test`."""
    return {
        part.lower()
        for workdir in workdirs
        for part in _SEPARATOR.split(workdir)
        if project in part
    }


def points_into(prompt: str, folders: set[str]) -> bool:
    """Whether `prompt` names a path through one of `folders` (lowercased folder names)."""
    return any(
        part.rstrip(_TRAILING).lower() in folders
        for path in _PATH.findall(prompt)
        for part in _SEPARATOR.split(path)
    )


def sessions_pointed_at(store: Any, project: str) -> tuple[str, ...]:
    """The sessions outside `project`'s folders whose opening request points into one of its
    folders (see the module's doc), sorted; cached per memory version."""
    key = (str(store.path), int(store.table.version), project)
    if key not in _CACHE:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = _pointed_at(store, project)
    return _CACHE[key]


def _pointed_at(store: Any, project: str) -> tuple[str, ...]:
    p = quote_sql(project)
    homes = store.scan(["workdir", "repo"], where=f"contains(workdir, {p}) OR contains(repo, {p})")
    places = [place or "" for name in ("workdir", "repo") for place in _distinct(homes, name)]
    folders = project_folders(places, project)
    if not folders:
        return ()
    rows = store.scan(
        ["session_id", "workdir", "repo", "text"],
        where=f"seq = 0 AND role = 'user' AND {holds_text_sql(project)}",
    ).to_pylist()
    found = {
        row["session_id"]
        for row in rows
        if project not in (row["workdir"] or "")
        and project not in (row["repo"] or "")
        and points_into(row["text"] or "", folders)
    }
    return tuple(sorted(found)) if len(found) <= MAX_SESSIONS else ()


def _distinct(table: Any, column: str) -> list[str | None]:
    return list(table.column(column).unique().to_pylist())

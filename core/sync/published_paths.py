"""What a push publishes of where a session ran: paths relative to the home folder, gated.

A transcript records absolute paths (`/home/alice/code/shop`, the transcript's own
`/home/alice/.claude/projects/-home-alice-code-shop/…`), which name the user and the layout of
their machine. A pushed row carries them as `~/code/shop` and `~/.claude/projects/~-code-shop/…`:
the part that tells projects apart, without the home, also where Claude Code spelled it into a
folder name. A path can hold a credential too (a folder named for a token, a key pasted into a
`cd`): the secret gate scans each published path as it scans text; a finding is redacted
(`[REDACTED:<kind>]`) when both scanners then find nothing, and the row is held back otherwise.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Home folders as other machines write them (a memory can hold sessions recorded elsewhere).
_HOME_FOLDER = re.compile(r"^(/home/[^/]+|/Users/[^/]+|/root|[A-Za-z]:[\\/]Users[\\/][^\\/]+)")
# The same, as Claude Code spells a working directory into a folder name (every character but
# letters and digits becomes `-`): `-home-alice-code-shop`. A user name with a `-` in it is
# known only from a home named in full (this machine's, the row's working directory's).
_ENCODED_HOME = re.compile(
    r"^(?:-(?:home|Users)-[A-Za-z0-9_]+|-root|[A-Za-z]--Users-[A-Za-z0-9_]+)"
)
PUBLISHED_PATH_COLUMNS = ("workdir", "source_path")


def home_relative(path: str, home: str | None = None, *others: str) -> str:
    """`path` with its home folder written `~` (this user's home, or any `/home/NAME`,
    `/Users/NAME`, `/root`, `C:\\Users\\NAME`), also inside a folder name Claude Code made of a
    working directory (`-home-alice-shop` → `~-shop`); `others`: more home folders whose user
    names may be spelled there (the row's working directory's). Other paths as they are."""
    home = (home if home is not None else str(Path.home())).rstrip("/\\")
    homes = [home, _home_of(path), *(_home_of(o) for o in others)]
    if home and (path == home or path.startswith((home + "/", home + "\\"))):
        path = "~" + path[len(home) :]
    else:
        match = _HOME_FOLDER.match(path)
        if match and (len(path) == match.end() or path[match.end()] in "/\\"):
            path = "~" + path[match.end() :]
    return _encoded_homes_out(path, [h for h in homes if h])


def _home_of(path: str) -> str:
    match = _HOME_FOLDER.match(path)
    return match.group(1) if match else ""


def _encoded(folder: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", folder.rstrip("/\\"))


def _encoded_homes_out(path: str, homes: list[str]) -> str:
    encoded = sorted({_encoded(h) for h in homes if _encoded(h).strip("-")}, key=len, reverse=True)
    parts = re.split(r"([/\\])", path)
    for i, part in enumerate(parts):
        if not part.startswith("-") and not re.match(r"[A-Za-z]--", part):
            continue
        for home in encoded:
            if part == home or part.startswith(home + "-"):
                parts[i] = "~" + part[len(home) :]
                break
        else:
            match = _ENCODED_HOME.match(part)
            if match and (len(part) == match.end() or part[match.end()] == "-"):
                parts[i] = "~" + part[match.end() :]
    return "".join(parts)


def home_relative_rows(rows: Any) -> Any:
    """`rows` (an Arrow table of chunks) with PUBLISHED_PATH_COLUMNS made home-relative."""
    return publish_paths(rows, gate=False).rows


@dataclass
class PublishedPaths:
    rows: Any  # the rows with their paths as published
    keep: list[bool] = field(default_factory=list)  # False: a path held a secret left unredacted
    by_kind: Counter[str] = field(default_factory=Counter)  # findings in held paths, by kind
    redacted: int = 0  # paths published redacted


def publish_paths(rows: Any, *, gate: bool = True) -> PublishedPaths:
    """`rows` (an Arrow table of chunks) with PUBLISHED_PATH_COLUMNS as they may leave the
    machine: home-relative, and (with `gate`) scanned by the secret gate, a finding redacted or,
    when the redaction does not scan clean, the row marked to be held back. A transcript path
    holding a folder Claude Code named for a working directory with a secret in it loses that
    folder's name (the scanners cannot read a token whose `_` became `-`). Raises ScannerFailed
    as the gate does."""
    import pyarrow as pa

    home = str(Path.home())
    columns = {
        name: rows.column(name).to_pylist() if name in rows.column_names else None
        for name in PUBLISHED_PATH_COLUMNS
    }
    workdirs, sources = columns["workdir"], columns["source_path"]
    result = PublishedPaths(rows, keep=[True] * rows.num_rows)
    verdicts: dict[str, str | None] = {}  # published path → what goes out (None: held)

    def gated(path: str) -> str | None:
        if not gate:
            return path
        if path not in verdicts:
            verdicts[path] = _gated(path, result)
        return verdicts[path]

    out: dict[str, list[str | None]] = {name: [] for name in columns}
    for row in range(rows.num_rows):
        workdir = workdirs[row] if workdirs is not None else None
        published_workdir = None if workdir is None else home_relative(workdir, home)
        workdir_out = None if published_workdir is None else gated(published_workdir)
        if workdir is not None and workdir_out is None:
            result.keep[row] = False
        out["workdir"].append(workdir_out if workdir_out is not None else published_workdir)
        source = sources[row] if sources is not None else None
        if source is None:
            out["source_path"].append(None)
            continue
        published = home_relative(source, home, workdir or "")
        if workdir and workdir_out != published_workdir:
            published = _without_folder_of(published, workdir, home)
        source_out = gated(published)
        if source_out is None:
            result.keep[row] = False
        out["source_path"].append(source_out if source_out is not None else published)
    for name, values in out.items():
        if columns[name] is None:
            continue
        index = rows.schema.get_field_index(name)
        result.rows = result.rows.set_column(
            index, result.rows.schema.field(index), pa.array(values, pa.string())
        )
    return result


def _without_folder_of(path: str, workdir: str, home: str) -> str:
    """`path` (published) with the folder Claude Code named for `workdir` written
    `[REDACTED:workdir]`."""
    spelled = _encoded(workdir)
    # Compared as spelled with every other character a `-` (older versions kept `_` and `.`).
    names = {spelled, _encoded(_encoded_homes_out(spelled, [home, _home_of(workdir)]))}
    parts = re.split(r"([/\\])", path)
    return "".join("[REDACTED:workdir]" if _encoded(part) in names else part for part in parts)


def _gated(path: str, result: PublishedPaths) -> str | None:
    """The path as it may be published: itself when clean, redacted when that scans clean,
    None when it must be held back."""
    from funes.index.redact import redact
    from funes.sync.gate import scan_block

    kinds = scan_block(path)
    if not kinds:
        return path
    # Segment by segment: the redactor reads `/` as part of a token (base64), not as its end.
    pieces = [redact(part) for part in re.split(r"([/\\])", path)]
    redacted, findings = "".join(text for text, _ in pieces), [f for _, f in pieces if f]
    if findings and not scan_block(redacted):
        result.redacted += 1
        return redacted
    result.by_kind.update(set(kinds))
    return None

"""Curation: which of a repository's sessions its project memory publishes.

A project memory is a Hub memory named for one repository (`owner/name`), recorded in the
dataset as `funes.json` ({"kind": "project", "project": "owner/name"}). Its candidates are the
local sessions whose `repo` facet holds that identity (the git remotes of the folder the session
ran in). The user includes or excludes whole sessions; a push of a project memory ships only
included sessions, always whole, and a session that grew after it was reviewed is held back
until it is looked at again. Subagent sessions follow the session that started them.

Decisions live in `$FUNES_HOME/curation/<memory>.txt`, one line per session, editable by hand:

    project acme/widgets
    include 60f3c85c-… 42   # 2026-01-31 why does the cache miss after a deploy
    exclude 9a1b2c3d-…      # 2026-02-02 my salary negotiation notes

The number after an include is the session's chunk count when it was reviewed. Excluding never
retracts what was already pushed (use `funes forget` for that).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from funes.paths import funes_home
from funes.retrieve.handles import ambiguous

PROJECT = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
MANIFEST = "funes.json"
PROMPT_CHARS = 200
# Text that opens a session but is not the user's question (harness scaffolding).
SCAFFOLDING = (
    "<",
    "#",
    "Base directory for this skill",
    "This session is being continued from a previous conversation",
)


class CurateError(ValueError):
    """Bad input or a memory that cannot be curated; the message is fit for the user."""


@dataclass
class Candidate:
    session_id: str
    chunks: int
    first_ts: str
    last_ts: str
    harness: str
    workdir: str
    prompt: str
    subagents: list[str] = field(default_factory=list)
    decision: str = ""  # include | exclude | "" (pending)
    reviewed_chunks: int | None = None  # chunk count recorded with an include

    @property
    def stale(self) -> bool:
        """Included, but the session grew since: held back until reviewed again."""
        return self.decision == "include" and (
            self.reviewed_chunks is not None and self.chunks > self.reviewed_chunks
        )

    @property
    def pending(self) -> bool:
        return self.decision == "" or self.stale

    @property
    def date(self) -> str:
        return self.first_ts[:10] or "----------"


@dataclass
class Decisions:
    path: Path
    project: str = ""
    include: dict[str, int | None] = field(default_factory=dict)  # session → reviewed chunks
    exclude: set[str] = field(default_factory=set)
    notes: dict[str, str] = field(default_factory=dict)  # session → "date prompt" comment
    skipped: list[str] = field(default_factory=list)  # lines not understood

    def decide(self, candidate: Candidate, decision: str) -> None:
        sid = candidate.session_id
        self.include.pop(sid, None)
        self.exclude.discard(sid)
        if decision == "include":
            self.include[sid] = candidate.chunks
        elif decision == "exclude":
            self.exclude.add(sid)
        self.notes[sid] = f"{candidate.date} {candidate.prompt[:80]}".strip()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            "# funes curation: which sessions this project memory publishes (see `funes curate`)",
            f"project {self.project}",
        ]
        for sid in sorted(self.include):
            count = self.include[sid]
            lines.append(
                _line(f"include {sid}" + (f" {count}" if count is not None else ""), sid, self)
            )
        for sid in sorted(self.exclude):
            lines.append(_line(f"exclude {sid}", sid, self))
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        os.replace(tmp, self.path)


def _line(head: str, sid: str, decisions: Decisions) -> str:
    note = " ".join(decisions.notes.get(sid, "").split())
    return f"{head:<60} # {note}" if note else head


def decisions_path(uri: str) -> Path:
    from funes.memory_spec import parse_remote_spec

    return funes_home() / "curation" / f"{parse_remote_spec(uri).cache_name}.txt"


def load_decisions(uri: str) -> Decisions:
    decisions = Decisions(path=decisions_path(uri))
    try:
        text = decisions.path.read_text()
    except OSError:
        return decisions
    for raw in text.splitlines():
        body, _, comment = raw.partition("#")
        parts = body.split()
        if not parts:
            continue
        if parts[0] == "project" and len(parts) == 2:
            decisions.project = parts[1]
        elif parts[0] == "include" and len(parts) in (2, 3):
            count = int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else None
            if len(parts) == 3 and count is None:
                decisions.skipped.append(raw)
                continue
            decisions.include[parts[1]] = count
        elif parts[0] == "exclude" and len(parts) == 2:
            decisions.exclude.add(parts[1])
        else:
            decisions.skipped.append(raw)
            continue
        if comment.strip() and len(parts) >= 2 and parts[0] != "project":
            decisions.notes[parts[1]] = comment.strip()
    return decisions


def check_project(project: str, store: Any | None) -> str:
    """`project` if it is an `owner/name` identity, else a CurateError with suggestions."""
    project = project.strip().strip("/")
    if PROJECT.match(project):
        return project
    hint = ""
    if store is not None and "/" not in project:
        known = _known_repos(store)
        close = sorted(r for r in known if r.lower().endswith("/" + project.lower()))
        if close:
            hint = " — did you mean " + " or ".join(close[:3]) + "?"
    raise CurateError(f"a project is a repository identity, owner/name: {project!r}{hint}")


def _known_repos(store: Any) -> set[str]:
    rows = store.scan(["repo"], where="repo != ''")
    return {r for value in rows.column("repo").to_pylist() for r in (value or "").split()}


def candidates(store: Any, project: str, decisions: Decisions | None = None) -> list[Candidate]:
    """The local sessions of `project`, newest first, with their decisions."""
    from funes.index.store import sql_quote

    columns = ["session_id", "repo", "ts", "harness", "workdir", "role", "block_type", "seq"]
    rows = store.scan(
        [*columns, "block_idx", "split_idx", "parent_uuid", "text"],
        where=f"contains(repo, {sql_quote(project)})",
    ).to_pylist()
    by_session: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if project in (row["repo"] or "").split():
            by_session.setdefault(row["session_id"] or "", []).append(row)
    parents: dict[str, str] = {}
    for sid, session_rows in by_session.items():
        first = min(session_rows, key=lambda r: (r["seq"], r["block_idx"], r["split_idx"]))
        if sid.startswith("agent-") and first["seq"] == 0 and first["parent_uuid"] in by_session:
            parents[sid] = first["parent_uuid"]
    found: dict[str, Candidate] = {}
    for sid, session_rows in by_session.items():
        if sid in parents:
            continue
        stamps = sorted(r["ts"] for r in session_rows if r["ts"])
        found[sid] = Candidate(
            session_id=sid,
            chunks=len(session_rows),
            first_ts=stamps[0] if stamps else "",
            last_ts=stamps[-1] if stamps else "",
            harness=session_rows[0]["harness"] or "",
            workdir=session_rows[0]["workdir"] or "",
            prompt=_first_prompt(session_rows),
        )
    for child, parent in parents.items():
        found[parent].subagents.append(child)
        found[parent].chunks += len(by_session[child])
    if decisions is not None:
        for candidate in found.values():
            if candidate.session_id in decisions.include:
                candidate.decision = "include"
                candidate.reviewed_chunks = decisions.include[candidate.session_id]
            elif candidate.session_id in decisions.exclude:
                candidate.decision = "exclude"
    return sorted(found.values(), key=lambda c: (c.first_ts, c.session_id), reverse=True)


def _first_prompt(rows: list[dict[str, Any]]) -> str:
    for row in sorted(rows, key=lambda r: (r["seq"], r["block_idx"], r["split_idx"])):
        if row["role"] != "user" or row["block_type"] != "text" or row["split_idx"]:
            continue
        text = " ".join((row["text"] or "").split())
        if text and not text.startswith(SCAFFOLDING):
            return text[:PROMPT_CHARS]
    return ""


def publishable(store: Any, project: str, decisions: Decisions) -> tuple[set[str], list[Candidate]]:
    """(chunk ids a push may ship, sessions pending review): ids of included, not stale
    sessions and their subagents."""
    from funes.index.store import sql_quote

    found = candidates(store, project, decisions)
    ship = [c for c in found if c.decision == "include" and not c.stale]
    sessions = [s for c in ship for s in [c.session_id, *c.subagents]]
    ids: set[str] = set()
    for start in range(0, len(sessions), 200):
        batch = sessions[start : start + 200]
        where = "session_id IN (" + ", ".join(sql_quote(s) for s in batch) + ")"
        ids.update(store.scan(["id"], where=where).column("id").to_pylist())
    return ids, [c for c in found if c.pending]


def resolve_session(found: list[Candidate], prefix: str) -> Candidate:
    matches = [c for c in found if c.session_id.startswith(prefix)]
    exact = [c for c in matches if c.session_id == prefix]
    if exact:
        return exact[0]
    if not matches:
        raise CurateError(f"no session of this project starts with {prefix!r}")
    if len(matches) > 1:
        raise CurateError(ambiguous(prefix, [c.session_id for c in matches]))
    return matches[0]


def manifest_bytes(project: str) -> bytes:
    import json

    return (json.dumps({"kind": "project", "project": project}, indent=2) + "\n").encode()


def read_manifest(remote: Any, remote_spec: Any, head: str, tmp: Path) -> str:
    """The project a Hub memory is named for (its `funes.json`), or "" for a personal one."""
    import json

    text = remote.read_text(remote_spec.path_in_repo(MANIFEST), head, tmp / "manifest")
    if not text:
        return ""
    try:
        project = json.loads(text).get("project", "")
    except (ValueError, AttributeError):
        return ""
    return project if isinstance(project, str) and PROJECT.match(project) else ""


def pending_note(uri: str) -> list[str]:
    """For `funes status` of a Hub memory curated here: how many sessions wait for review."""
    from funes.index.store import ChunkStore, MemoryNotFound

    decisions = load_decisions(uri)
    if not decisions.project:
        return []
    try:
        _, pending = publishable(ChunkStore.open(), decisions.project, decisions)
    except MemoryNotFound:
        return []
    line = f"project memory of {decisions.project}"
    if pending:
        line += f": {len(pending)} session(s) pending review — run `funes curate {uri}`"
    return [line]


def _curation_files() -> Iterator[tuple[Path, list[str]]]:
    """Every curation file that can be read, with its lines (their ends kept)."""
    folder = funes_home() / "curation"
    for path in sorted(folder.glob("*.txt")) if folder.is_dir() else []:
        try:
            yield path, path.read_text().splitlines(keepends=True)
        except OSError:
            continue


def _rewrite(path: Path, lines: list[str]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(lines))
    os.replace(tmp, path)


def unclean_notes(*, fix: bool = False) -> list[Path]:
    """Curation files whose notes (a session's first words, for the reader) hold what the memory
    would not store (a credential, a private span): an older funes wrote them from rows it
    later scrubbed. With `fix`, their notes are cleaned as rows are."""
    from funes.index.state import clean_text

    found = []
    for path, lines in _curation_files():
        cleaned = []
        for line in lines:
            body, hash_, note = line.partition("#")
            cleaned.append(body + hash_ + clean_text(note) if hash_ and body.strip() else line)
        if cleaned != lines:
            found.append(path)
            if fix:
                _rewrite(path, cleaned)
    return found


def forget_decisions(sessions: set[str]) -> int:
    """Take every line naming one of `sessions` (its id and first words) out of the curation
    files; return how many went. For `funes forget`: a decision about a forgotten session has
    nothing left to decide."""
    removed = 0
    for path, lines in _curation_files():
        kept = []
        for line in lines:
            parts = line.partition("#")[0].split()
            named = len(parts) >= 2 and parts[0] in ("include", "exclude") and parts[1] in sessions
            if not named:
                kept.append(line)
        if len(kept) != len(lines):
            removed += len(lines) - len(kept)
            _rewrite(path, kept)
    return removed

"""Which agent wrote a file: by where it lives, else by what its first record looks like; and
the one walk of a folder that hands each file to the source that reads it.

Every `TraceSource.owns` asks `classify`, so exactly one source owns any given file. A folder is
walked once (`find_units`) for every source together, each file routed by `classify` and by the
rules of a folder walk (`_walked_as`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from funes.paths import (
    claude_home,
    codex_home,
    copilot_home,
    gemini_dir,
    hermes_home,
    is_within,
    pi_agent_dir,
    qwen_home,
)
from funes.traces.jsonl import open_stream, split_objects
from funes.traces.sqlite import DatabaseBusy, is_busy, query_readonly

SNIFF_BYTES = 256 * 1024
SNIFF_CHUNK = 16 * 1024
JSONL_SUFFIXES = (".jsonl", ".jsonl.zst")


def _first_record(path: Path) -> dict | None:
    """The first JSON object of a JSONL file, reading no more of it than needed."""
    head = b""
    try:
        with open_stream(path) as stream:
            while len(head) < SNIFF_BYTES:
                block = stream.read(SNIFF_CHUNK)
                head += block
                lines = head.split(b"\n")
                complete = lines if not block else lines[:-1]
                for raw in complete:
                    values = split_objects(raw.decode("utf-8", errors="replace").strip())
                    if values and isinstance(values[0], dict):
                        return values[0]
                if not block:
                    return None
    except OSError:
        return None
    return None


def sniff_record(record: dict) -> str:
    """The harness whose JSONL starts with `record`."""
    kind = record.get("type")
    if kind == "session.start" and isinstance(record.get("data"), dict):  # Copilot CLI
        return "copilot"
    if "payload" in record or kind in (
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
    ):
        return "codex"
    if kind == "session" or (kind == "message" and "message" in record and "uuid" not in record):
        return "pi"
    if "role" in record and "type" not in record:  # Hermes gateway transcript
        return "hermes"
    if "messages" in record and ("session_id" in record or "id" in record):  # hermes export
        return "hermes"
    if record.get("version") == "hermes-agent":  # `hermes sessions export --format trace`
        return "hermes"
    if "projectHash" in record and "sessionId" in record:  # Gemini CLI's header line
        return "gemini"
    message = record.get("message")
    if "uuid" in record and ("provenance" in record or _has_parts(message)):  # Qwen Code
        return "qwen"
    return "claude_code"


def _has_parts(message: object) -> bool:
    return isinstance(message, dict) and "parts" in message


def _sqlite_tables(path: Path) -> set[str]:
    """The table names of a SQLite database (empty when `path` is not one)."""
    try:
        with path.open("rb") as handle:
            if handle.read(16) != b"SQLite format 3\x00":
                return set()
        return {row[0] for row in query_readonly(path, "SELECT name FROM sqlite_master")}
    except DatabaseBusy:
        raise
    except (OSError, sqlite3.Error) as error:
        if is_busy(error):
            raise DatabaseBusy(str(error)) from None
        return set()


def _database_owner(path: Path) -> str | None:
    """hermes | opencode, by the tables the database holds (by its name while another program
    holds it locked: it is read, and said to be busy, rather than silently left out)."""
    try:
        tables = _sqlite_tables(path)
    except DatabaseBusy:
        name = path.name.lower()
        return (
            "opencode" if name.startswith("opencode") else "hermes" if name == "state.db" else None
        )
    if {"messages", "sessions"} <= tables:
        return "hermes"
    if {"session", "message", "part"} <= tables:
        return "opencode"
    return None


def _is_hermes_json(path: Path) -> bool:
    if path.name.startswith("session_"):
        return True
    return _head_holds(path, SNIFF_BYTES, ('"messages"', '"session_id"'))


def _is_gemini_json(path: Path) -> bool:
    """A Gemini CLI session from before it wrote JSONL: one document opening with its header."""
    return _head_holds(path, SNIFF_CHUNK, ('"projectHash"', '"sessionId"'))


def _head_holds(path: Path, size: int, words: tuple[str, ...]) -> bool:
    """Whether the first `size` bytes of the file hold every one of `words`."""
    try:
        with path.open("rb") as handle:
            head = handle.read(size).decode("utf-8", errors="replace")
    except OSError:
        return False
    return all(word in head for word in words)


# classify(path) is asked for every file of a folder being indexed, and by `owns`, and answering
# may open the file; remember answers while the file and the agents' roots stay put.
_answers: dict[tuple[object, ...], str | None] = {}
_MAX_ANSWERS = 100_000


def classify(path: Path) -> str | None:
    """The harness whose source reads this file (claude_code, codex, …), or None."""
    try:
        stat = path.stat()
    except OSError:
        return _classify(path)
    roots = (
        claude_home(),
        codex_home(),
        pi_agent_dir(),
        hermes_home(),
        gemini_dir(),
        qwen_home(),
        copilot_home(),
    )
    key = (str(path), stat.st_size, stat.st_mtime_ns, roots)
    if key not in _answers:
        if len(_answers) >= _MAX_ANSWERS:
            _answers.clear()
        _answers[key] = _classify(path)
    return _answers[key]


def _classify(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".db"):
        return _database_owner(path)
    if name.endswith(".json"):
        if name.startswith("request_dump"):  # API dumps may hold credentials: never read
            return None
        if name.startswith("session-") and _is_gemini_json(path):
            return "gemini"
        return "hermes" if _is_hermes_json(path) else None
    if not name.endswith(JSONL_SUFFIXES):
        return None
    by_location = (
        (claude_home() / "projects", "claude_code"),
        (codex_home(), "codex"),
        (pi_agent_dir() / "sessions", "pi"),
        (hermes_home(), "hermes"),
        (copilot_home() / "session-state", "copilot"),
    )
    for root, harness in by_location:
        if is_within(path, root):
            return harness
    # Beside their sessions these agents keep other JSONL (logs, usage records): not read.
    if is_within(path, gemini_dir()):
        return "gemini" if is_within(path, gemini_dir() / "tmp") and "chats" in path.parts else None
    if is_within(path, qwen_home()):
        return "qwen" if is_within(path, qwen_home() / "projects") else None
    record = _first_record(path)
    return sniff_record(record) if record is not None else "claude_code"


# --- one walk of a folder ---------------------------------------------------------------------

# The file names a folder walk hands to each source (the rest it never reads there, even when
# `classify` names that source: a Claude or pi `.jsonl.zst` is read only when named).
WALKED_NAMES: dict[str, Callable[[str], bool]] = {
    "claude_code": lambda name: name.endswith(".jsonl"),
    "codex": lambda name: name.endswith((".jsonl", ".jsonl.zst")),
    "pi": lambda name: name.endswith(".jsonl"),
    "hermes": lambda name: Path(name).suffix in (".db", ".json", ".jsonl"),
    "gemini": lambda name: name.endswith((".jsonl", ".json")),
    "qwen": lambda name: name.endswith(".jsonl"),
    "opencode": lambda name: name.endswith(".db"),
    "copilot": lambda name: name.endswith(".jsonl"),
    "parquet": lambda name: name.lower().endswith(".parquet"),
}


@dataclass(frozen=True)
class _Entry:
    path: Path
    is_file: bool
    swept: bool  # reached without following a link to a folder, as a recursive glob is
    hermes_place: bool  # where a Hermes home keeps its databases and session logs


def _is_hermes_home(root: Path) -> bool:
    return (root / "state.db").exists() or (root / "sessions").is_dir()


def _hermes_folder(parts: tuple[str, ...]) -> bool:
    """`sessions`, `profiles`, `profiles/*`, `profiles/*/sessions` of a Hermes home."""
    if parts == ("sessions",) or (parts[0] == "profiles" and len(parts) <= 2):
        return True
    return len(parts) == 3 and parts[0] == "profiles" and parts[2] == "sessions"


def _hermes_file(parts: tuple[str, ...]) -> bool:
    """`state.db`, `profiles/*/state.db`, `sessions/*`, `profiles/*/sessions/*` of a Hermes home."""
    if parts == ("state.db",) or (len(parts) == 2 and parts[0] == "sessions"):
        return True
    if len(parts) < 3 or parts[0] != "profiles":
        return False
    return parts[2:] == ("state.db",) or (len(parts) == 4 and parts[2] == "sessions")


def _walk(root: Path, everything: bool, hermes_home: bool) -> Iterator[_Entry]:
    """Every entry under `root`, each folder listed once. Links to folders are not followed,
    except to the places a Hermes home keeps its sessions; with `everything` False (only Hermes
    wants this home, which also holds its code and caches) only those places are listed."""
    folders: list[tuple[Path, tuple[str, ...], bool]] = [(root, (), True)]
    while folders:
        folder, above, swept = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            parts = (*above, entry.name)
            path = folder / entry.name
            try:
                is_dir, is_file, is_link = entry.is_dir(), entry.is_file(), entry.is_symlink()
            except OSError:
                continue
            place = hermes_home and _hermes_file(parts)
            yield _Entry(path, is_file, swept, place)
            if not is_dir:
                continue
            if everything and swept and not is_link:
                folders.append((path, parts, True))
            elif hermes_home and _hermes_folder(parts):
                folders.append((path, parts, swept and not is_link))


def _walked_as(entry: _Entry, plain: set[Path], hermes_home: bool) -> str | None:
    """The source a folder walk hands `entry` to: `classify`, within the names that source
    walks for (`WALKED_NAMES`), and where it walks for them. Claude Code's `tool-results/`
    hold tool output, not transcripts; a Codex rollout stored both plain and compressed counts
    once (Codex keeps the plain one); in a Hermes home only where it writes sessions."""
    path = entry.path
    harness = classify(path)
    if harness is None or not WALKED_NAMES[harness](path.name):
        return None
    if harness == "hermes":
        return harness if (entry.hermes_place if hermes_home else entry.swept) else None
    if not entry.swept:
        return None
    if harness == "claude_code" and "tool-results" in path.parts:
        return None
    if harness == "codex" and path.name.endswith(".zst") and path.with_suffix("") in plain:
        return None
    return harness


def find_units(root: Path, harnesses: Collection[str]) -> dict[str, list[Path]]:
    """The units of each of `harnesses` under `root` (a folder, walked once, or one file), by
    harness, each list sorted (a Codex rollout's plain files before the compressed ones)."""
    found: dict[str, list[Path]] = {harness: [] for harness in harnesses}
    if root.is_file():
        harness = classify(root)
        if harness in found:
            found[harness].append(root)
        return found
    hermes_home = "hermes" in found and _is_hermes_home(root)
    everything = not hermes_home or any(h != "hermes" for h in found)
    entries = list(_walk(root, everything, hermes_home))
    plain = {e.path for e in entries if e.swept and e.path.name.endswith(".jsonl")}
    for entry in entries:
        name = entry.path.name
        if not entry.is_file or not any(WALKED_NAMES[h](name) for h in found):
            continue  # no source wanted here reads such a file: do not open it to ask
        harness = _walked_as(entry, plain, hermes_home)
        if harness in found:
            found[harness].append(entry.path)
    for units in found.values():
        units.sort(key=lambda path: (path.name.endswith(".zst"), path))
    return found

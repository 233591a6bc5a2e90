"""Every agent's real transcript (the ones tests/test_recall_all_agents.py indexes), and the ways
a hostile or broken writer damages one: a value replaced by another type, a line cut short, a
value nested thousands deep, a huge string. Used by the fuzz suite and the trust tests."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conftest import CORPUS
from test_recall_all_agents import AGENT_TRANSCRIPTS, place

# What a value is replaced by: every other JSON type, text UTF-8 cannot encode, a huge string,
# and values nested deeper than Python's parser follows (3,000) and just under it (900).
REPLACEMENTS: list[Any] = [
    5,
    -1,
    1.5,
    True,
    None,
    "",
    [],
    [1, "x"],
    {},
    {"a": 1},
    "\ud800",
    "x" * 300_000,
    "deep:900",
    "deep:3000",
]
# Where a database keeps its JSON (or text) values: table → (id column, value columns).
DB_COLUMNS: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "hermes": {"messages": ("id", ("content", "tool_calls", "tool_call_id", "tool_name", "role"))},
    "opencode": {"message": ("id", ("data",)), "part": ("id", ("data",))},
}


def materialise(replacement: Any) -> Any:
    """The value a replacement names (`deep:N`: a list nested N deep)."""
    if isinstance(replacement, str) and replacement.startswith("deep:"):
        depth = int(replacement.split(":")[1])
        value: Any = []
        for _ in range(depth):
            value = [value]
        return value
    return replacement


def dumps(value: Any) -> str:
    """JSON text for any value, nested however deep (the encoder's recursion has a limit)."""
    depth = 0
    while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value, depth = value[0], depth + 1
    return "[" * depth + json.dumps(value) + "]" * depth


def value_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value (the first few items of each list), itself first."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from value_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:4]):
            yield from value_paths(item, (*prefix, index))


def replaced(record: Any, path: tuple[Any, ...], new: Any) -> Any:
    """`record` with the value at `path` replaced by `new` (a copy)."""
    if not path:
        return new
    copy = json.loads(json.dumps(record))
    holder = copy
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = new
    return copy


def mutated_json(text: str, pick: int, replacement: Any) -> str:
    """One value of the JSON document `text` (the `pick`-th place, modulo) replaced."""
    record = json.loads(text)
    paths = list(value_paths(record))
    path = paths[pick % len(paths)] if len(paths) == 1 else paths[1:][pick % (len(paths) - 1)]
    return dumps_record(replaced(record, path, "\x00marker\x00"), materialise(replacement))


def dumps_record(record: Any, new: Any) -> str:
    """`record` as JSON with its marker replaced by `new` (which may nest past the encoder)."""
    return json.dumps(record).replace(json.dumps("\x00marker\x00"), dumps(new))


# More real transcripts, read (not indexed) by the fuzz suite: several sessions in one file, a
# Hermes session log (one JSON document) and export, older Codex and pi formats.
EXTRA_TRANSCRIPTS: dict[str, Path] = {
    "claude_code:3-sessions": CORPUS
    / "claude/jazzyalex__agent-sessions__stage0_claude_small.jsonl",
    "codex:0.146": CORPUS / "codex/jazzyalex__agent-sessions__stage0_codex_small.jsonl",
    "pi:v3": CORPUS / "pi/jazzyalex__agent-sessions__stage0_pi_small.jsonl",
    "hermes:log": CORPUS / "hermes/jazzyalex__agent-sessions__stage0_hermes_small.json",
    "hermes:export": CORPUS / "generated/hermes/hermes-mcp-sessions-export.jsonl",
}
ALL_TRANSCRIPTS: dict[str, Path] = {**AGENT_TRANSCRIPTS, **EXTRA_TRANSCRIPTS}
# ... and a Parquet export, written from Hermes's export when first asked for.
FUZZED = sorted([*ALL_TRANSCRIPTS, "parquet"])

_PRISTINE: dict[str, Path] = {}


def place_one(harness: str, folder: Path) -> Path:
    """A copy of the transcript named `harness` (in ALL_TRANSCRIPTS) in `folder`. A database is
    built from its dump once, then copied: one per example spent most of the time in fsync."""
    if harness == "parquet" and harness not in _PRISTINE:
        _PRISTINE[harness] = _parquet_export(Path(tempfile.mkdtemp(prefix="funes-fuzz-")))
    if harness not in _PRISTINE:
        _PRISTINE[harness] = place(
            ALL_TRANSCRIPTS[harness], Path(tempfile.mkdtemp(prefix="funes-fuzz-")) / "pristine"
        )
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(_PRISTINE[harness], folder / _PRISTINE[harness].name))


def place_all(folder: Path) -> dict[str, Path]:
    """A copy of every agent's transcript under `folder/<harness>/`."""
    return {harness: place_one(harness, folder / harness) for harness in AGENT_TRANSCRIPTS}


def damage_lines(unit: Path, line_pick: int, value_pick: int, replacement: Any) -> str:
    """Replace one value on one JSON line of `unit` (in the document, for a `.json` file);
    returns `file:line` of the damage."""
    if unit.suffix == ".json":
        text = json.dumps(json.loads(unit.read_text(encoding="utf-8")))
        unit.write_text(mutated_json(text, value_pick, replacement), encoding="utf-8")
        return f"{unit}:1"
    lines = unit.read_text(encoding="utf-8").splitlines()
    candidates = [i for i, line in enumerate(lines) if line.strip().startswith("{")]
    index = candidates[line_pick % len(candidates)]
    lines[index] = mutated_json(lines[index], value_pick, replacement)
    unit.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"{unit}:{index + 1}"


def truncate_line(unit: Path, line_pick: int, cut_pick: int) -> str:
    """Cut one line of `unit` short (not the last: a cut last line is still being written)."""
    lines = unit.read_text(encoding="utf-8").splitlines()
    index = line_pick % max(len(lines) - 1, 1)
    lines[index] = lines[index][: 1 + cut_pick % max(len(lines[index]) - 1, 1)]
    unit.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"{unit}:{index + 1}"


def damage_row(unit: Path, harness: str, row_pick: int, value_pick: int, replacement: Any) -> str:
    """Replace one value inside one row's JSON (or the whole value of a text column) of an
    agent's database; returns `db:table:rowid` of the damage."""
    places = [
        (table, key, column)
        for table, (key, columns) in DB_COLUMNS[harness].items()
        for column in columns
    ]
    conn = sqlite3.connect(unit)
    try:
        conn.execute("PRAGMA synchronous = OFF")
        rows = [
            (table, key, column, row_id, value)
            for table, key, column in places
            for row_id, value in conn.execute(f"SELECT {key}, {column} FROM {table}")
            if value is not None
        ]
        table, key, column, row_id, value = rows[row_pick % len(rows)]
        try:
            new = mutated_json(value, value_pick, replacement)
        except (TypeError, ValueError):  # not JSON: the whole value goes
            new = dumps(materialise(replacement))
        if replacement == 5 and value_pick % 3 == 0:
            new = 5  # a column of another type altogether (SQLite lets any column hold any)
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (new, row_id))
        conn.commit()
    finally:
        conn.close()
    return f"{unit}:{table}:{row_id}"


def _parquet_export(folder: Path) -> Path:
    """A Parquet export (one row per session, messages as JSON text) of Hermes's real export."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sessions = [
        json.loads(line) for line in EXTRA_TRANSCRIPTS["hermes:export"].read_text().splitlines()
    ]
    path = folder / "export.parquet"
    table = pa.table(
        {
            "session_id": [str(s["id"]) for s in sessions],
            "messages": [[json.dumps(m) for m in s["messages"]] for s in sessions],
        },
        schema=pa.schema([("session_id", pa.string()), ("messages", pa.list_(pa.string()))]),
    )
    pq.write_table(table, path)
    return path


def damage_parquet(unit: Path, row_pick: int, value_pick: int, replacement: Any) -> str:
    """Replace one value inside one message of a Parquet export; returns `file:row`."""
    import pyarrow.parquet as pq

    table = pq.read_table(unit)
    rows = table.to_pylist()
    places = [(r, m) for r, row in enumerate(rows) for m in range(len(row["messages"]))]
    row, message = places[row_pick % len(places)]
    rows[row]["messages"][message] = mutated_json(
        rows[row]["messages"][message], value_pick, replacement
    )
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), unit)
    return f"{unit}:{row + 1}"

"""How recall results are printed for people (a terminal) and machines (JSON), and the pieces
every format shares: times, working folders, session handles, runnable `funes get` lines, the
quote bar. The agent format (the recall page) is funes.retrieve.page.
"""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from funes.retrieve.budget import trim_partial_word
from funes.retrieve.handles import MIN_HANDLE
from funes.retrieve.said import cut_reminders
from funes.retrieve.steps import unlabelled
from funes.retrieve.types import Hit, RecallResult
from funes.retrieve.weak import weak_note

QUOTE = "│ "
_HOME = re.compile(r"^(/home/[^/]+|/Users/[^/]+|/root)(?=/|$)")
# A line number as Claude Code's Read pads it (`     12→`): the padding says nothing.
_PADDED_NUMBER = re.compile(r"^ +(\d+→)", re.M)
NO_RESULTS = "no results"


def passage_text(hit: Hit) -> str:
    """A hit's text as it is shown. A later split of a long block (`split_idx` > 0) begins in
    the overlap it shares with the split before, usually inside a word: that partial word is
    left out and the start marked `…` (the `get` line prints the whole block). Tidied for reading
    (`for_reading`: `get --full` prints it as stored)."""
    text = trim_partial_word(hit.text) if hit.split_idx > 0 else hit.text
    return for_reading(text)


def for_reading(text: str) -> str:
    """A block's text as a reader is shown it (the recall page, a focused `get`): without the
    tool label its heading already says, the padding of Read's line numbers, and the harness's
    reminders (funes.retrieve.said.cut_reminders). `get --full` and `--json` keep the text as
    stored."""
    text = unlabelled(text)
    if "→" in text:
        text = _PADDED_NUMBER.sub(r"\1", text)
    return cut_reminders(text)


def relative_paths(text: str, workdir: str) -> str:
    """`text` with its session's working folder left out of the paths under it
    (`/Users/x/app/src/a.py` → `src/a.py`): the session's line names the folder once, and a
    timeline of calls on one file repeated it on every line."""
    root = workdir.rstrip("/")
    if len(root) < 2 or root not in text:
        return text
    return text.replace(root + "/", "")


def quote_block(text: str) -> list[str]:
    """Every line of `text` behind the quote bar (blank lines keep the bar)."""
    lines = text.splitlines() or [""]
    return [(QUOTE + line).rstrip() if line.strip() else QUOTE.rstrip() for line in lines]


def get_command(handle: str, turn: str, memory_label: str = "") -> str:
    """The `funes get` line of a place: its session's handle (funes.retrieve.handles), its
    turn (a seq or a turn id), and `--memory` only when it is not from the memory read by
    default."""
    return turn_command("get", handle, turn, memory_label)


def turn_command(verb: str, handle: str, turn: str, memory_label: str = "") -> str:
    """`funes VERB [--memory M] [--] HANDLE TURN`, shell-quoted so it runs as printed: a `--`
    goes before the ids when one starts with `-`, so no id is read as an option."""
    parts = ["funes", verb]
    if memory_label:
        parts += ["--memory", memory_label]
    if handle.startswith("-") or turn.startswith("-"):
        parts.append("--")
    parts += [handle, turn]
    return " ".join(shlex.quote(part) if i > 1 else part for i, part in enumerate(parts))


def session_handle(hit: Hit) -> str:
    """How a hit names its session: the handle recall gave it (else the first 8 characters)."""
    return hit.handle or hit.session_id[:MIN_HANDLE]


def hit_memory(hit: Hit, result: RecallResult) -> str:
    """The memory a hit's `get` line must name ("" for the memory read by default)."""
    label = hit.memory or result.memory_label
    return "" if label == result.default_memory else label


def short_time(ts: str) -> str:
    """`YYYY-MM-DD HH:MM` in UTC (the agent format's clock); what cannot be parsed, as given."""
    if not ts:
        return "-"
    try:
        when = datetime.fromisoformat(ts)
    except ValueError:
        return ts
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M")


def short_workdir(workdir: str) -> str:
    """A recorded working directory with its home folder written `~` (`/home/NAME`,
    `/Users/NAME`, `/root`): the part that tells projects apart, in fewer tokens."""
    match = _HOME.match(workdir)
    return "~" + workdir[match.end() :] if match else workdir or "-"


def _kind(hit: Hit) -> str:
    return f"{hit.block_type}:{hit.tool_name}" if hit.tool_name else hit.block_type


def format_human(result: RecallResult, width: int = 100) -> str:
    lines: list[str] = [f"memory {result.memory_label} · second pass: {result.second_pass}"]
    lines += [f"note: {note}" for note in [*result.notes, *weak_notes(result)]]
    if not result.hits:
        lines.append(NO_RESULTS)
        return "\n".join(lines) + "\n"
    for rank, hit in enumerate(result.hits, 1):
        when = short_time(hit.ts) if hit.ts else "time unknown"
        where = hit.workdir or hit.repo or "-"
        lines.append("")
        lines.append(
            f"{rank}. {when} · {hit.harness or '-'} · {where} · {hit.role} {_kind(hit)} "
            f"· score {hit.score:.2f}"
        )
        for paragraph in passage_text(hit).splitlines():
            wrapped = textwrap.wrap(
                paragraph, width=width - 3, break_long_words=False, break_on_hyphens=False
            )
            wrapped = wrapped or [""]
            lines += ["   " + w for w in wrapped]
        get = get_command(session_handle(hit), str(hit.seq), hit_memory(hit, result))
        lines.append("   ↳ " + get)
    return "\n".join(lines) + "\n"


def weak_notes(result: RecallResult) -> list[str]:
    """The weak-results note, as a list of zero or one notes."""
    note = weak_note(result.query, result.hits)
    return [note] if note else []


def recall_json(result: RecallResult) -> dict[str, Any]:
    return {
        "query": result.query,
        "memory": result.memory_label,
        "second_pass": result.second_pass,
        "notes": list(result.notes),
        "weak_note": weak_note(result.query, result.hits),
        "slipped": result.slipped,
        "hits": [
            {
                "session_id": h.session_id,
                "handle": session_handle(h),
                "turn_uuid": h.turn_uuid,
                "seq": h.seq,
                "harness": h.harness,
                "ts": h.ts,
                "role": h.role,
                "block_type": h.block_type,
                "tool_name": h.tool_name,
                "workdir": h.workdir,
                "repo": h.repo,
                "score": h.score,
                "text": h.text,
                "source_path": h.source_path,
                "chunk_id": h.id,
                "split_idx": h.split_idx,
                "memory": h.memory or result.memory_label,
                "neighbours": [asdict(n) for n in h.neighbours],
                "partner": asdict(h.partner) if h.partner else None,
                "get": get_command(session_handle(h), str(h.seq), hit_memory(h, result)),
            }
            for h in result.hits
        ],
    }


def format_json(result: RecallResult) -> str:
    return json.dumps(recall_json(result), ensure_ascii=False, indent=2) + "\n"

"""Several memories at once: one ranked list, each hit naming the memory it came from.

A layer above `funes.retrieve.recall`: each memory is recalled on its own (its own searches and
second pass), then the hits are merged by score. Scores are comparable across memories because
every part of the blend is on a fixed scale except the full-text share, which each memory
normalises to its own best match; a memory's best passage can therefore rank a little high, never
low. A chunk held by two memories (your local memory and the team memory you push to) is shown
once, from the first memory named. A memory that cannot be read becomes a note, unless none can.

Memory lists: `--memory` may be repeated, and each value may itself be a comma-separated list
(how an installer bakes several into one argument). With none named, the default memory is read.
Either way the project memory the working directory's repository declares is read too
(`funes.project.declared`; `FUNES_NO_REPO_MEMORY=1` turns that off).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from funes.retrieve.types import RecallResult

SEPARATOR = ","


def split_memories(values: Iterable[str | None] | str | None) -> list[str]:
    """Memory specs from repeated and comma-separated values, in order, without repeats."""
    if values is None or isinstance(values, str):
        values = [values]
    found: list[str] = []
    for value in values:
        if not value or not value.strip():
            continue
        # A folder whose name holds a comma is one memory, not two.
        parts = [value] if os.path.exists(value) else value.split(SEPARATOR)
        for part in parts:
            part = part.strip()
            if part and part not in found:
                found.append(part)
    return found


def resolve_memories(
    values: Iterable[str | None] | str | None = None,
    *,
    cwd: Path | None = None,
    notes: list[str] | None = None,
) -> list[str | None]:
    """What a read reads: the memories named (else the default memory), plus the ones the
    working directory's repository declares. `None` stands for the default memory."""
    from funes.project.declared import DeclarationError, find_declared

    chosen: list[str | None] = list(split_memories(values)) or [None]
    try:
        declared = find_declared(cwd)
    except DeclarationError as error:
        if notes is not None:
            notes.append(f"repository memory ignored: {error}")
        return chosen
    if declared is not None:
        chosen += [m for m in declared.memories if m not in chosen]
    return chosen


def recall_many(
    memories: Iterable[str | None] | str | None, query: str, **options: Any
) -> RecallResult:
    """`recall` over each memory (see `resolve_memories`), merged into one ranked list."""
    from funes.index.store import MemoryNotFound
    from funes.retrieve.pipeline import DEFAULT_K, recall

    notes: list[str] = []
    chosen = resolve_memories(memories, notes=notes)
    k = int(options.get("k", DEFAULT_K))
    if len(chosen) == 1:
        result = recall(query, memory=chosen[0], **options)
        for hit in result.hits:
            hit.memory = result.memory_label
        result.notes[:0] = notes
        return result
    results: list[RecallResult] = []
    failures: list[tuple[str, Exception]] = []
    futures = _recall_each(chosen, query, drop_slips=False, **options)
    answered = [f.result() for f in futures if f.exception() is None]
    if _slips_possible(options) and not any(result.hits for result in answered):
        # Nothing anywhere with those filters: a filter that names nothing in any memory is
        # a slip, dropped (with a note) as a single memory's recall drops it.
        futures = _recall_each(chosen, query, drop_slips=True, **options)
    for memory, future in zip(chosen, futures, strict=True):
        try:
            results.append(future.result())
        except (MemoryNotFound, ValueError) as error:
            if isinstance(error, ValueError) and not _is_memory_error(error):
                raise  # a bad filter or an empty query is the same for every memory
            failures.append((memory or "local", error))
        except Exception as error:  # a Hub memory that cannot be read: the others still answer
            failures.append((memory or "local", error))
    if not results:
        raise failures[0][1]
    merged = _merge(results, k)
    merged.notes[:0] = notes + [
        f"memory {name} skipped: {_one_line(error)}" for name, error in failures
    ]
    return merged


def _recall_each(memories: list[str | None], query: str, **options: Any) -> list[Future[Any]]:
    """`recall` in each memory at once: Lance searches release the GIL, so two memories cost
    about one."""
    from funes.retrieve.pipeline import recall

    with ThreadPoolExecutor(max_workers=min(len(memories), 4)) as pool:
        return [pool.submit(recall, query, memory=m, **options) for m in memories]


def _slips_possible(options: dict[str, Any]) -> bool:
    return any(options.get(name) for name in ("project", "session", "has"))


def _merge(results: list[RecallResult], k: int) -> RecallResult:
    labels = list(dict.fromkeys(r.memory_label for r in results))
    pooled = []
    for order, result in enumerate(results):
        for rank, hit in enumerate(result.hits):
            hit.memory = result.memory_label
            pooled.append((-hit.score, order, rank, hit))
    pooled.sort(key=lambda item: item[:3])
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()
    hits = []
    for *_, hit in pooled:
        text = " ".join(hit.text.split())
        if hit.id in seen_ids or text in seen_texts:
            continue
        seen_ids.add(hit.id)
        seen_texts.add(text)
        hits.append(hit)
    second = {r.second_pass for r in results}
    notes = [
        note if len(results) == 1 else f"{result.memory_label}: {note}"
        for result in results
        for note in result.notes
    ]
    return RecallResult(
        query=results[0].query,
        hits=hits[:k],
        memory_label=" + ".join(labels),
        second_pass=second.pop() if len(second) == 1 else "mixed",
        notes=notes,
        default_memory=next((r.default_memory for r in results if r.default_memory), ""),
        slipped=all(r.slipped for r in results),
        exact=results[0].exact,
    )


def get_many(
    memories: Iterable[str | None] | str | None,
    session_id: str,
    turn_uuid: str,
    **options: Any,
) -> Any:
    """`get_turns` from the first memory (in order) that holds the session and turn."""
    from funes.retrieve.get import get_turns

    return _first_holding(memories, get_turns, session_id, turn_uuid, **options)


def timeline_many(
    memories: Iterable[str | None] | str | None,
    session_id: str,
    turn: str | None,
    **options: Any,
) -> Any:
    """`build_timeline` from the first memory (in order) that holds the session and turn."""
    from funes.retrieve.timeline import build_timeline

    return _first_holding(memories, build_timeline, session_id, turn, **options)


def _first_holding(
    memories: Iterable[str | None] | str | None, read: Any, *args: Any, **options: Any
) -> Any:
    from funes.index.store import MemoryNotFound
    from funes.retrieve.get import TurnNotFound

    chosen = resolve_memories(memories)
    misses: list[Exception] = []
    for memory in chosen:
        try:
            return read(*args, memory=memory, **options)
        except (TurnNotFound, MemoryNotFound) as error:
            misses.append(error)
        except Exception as error:
            if len(chosen) == 1:
                raise
            misses.append(error)
    found = [m for m in misses if isinstance(m, TurnNotFound)]
    raise (found or misses)[0]


def _is_memory_error(error: ValueError) -> bool:
    # Spec parsing (`ORG/REPO` expected, …) is about one memory; filters are about the query.
    return "hf://" in str(error) or "ORG/REPO" in str(error)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:200]

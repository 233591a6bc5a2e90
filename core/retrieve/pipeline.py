"""recall(): query → two prefiltered searches → blended pool → second pass → recency → hits."""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime
from typing import Any

from funes.retrieve.answers import promote_answers
from funes.retrieve.blend import (
    FIRST_PASS,
    WITH_CROSS_ENCODER,
    WITH_MINILM,
    Weights,
    blend,
    block_priors,
    session_support,
)
from funes.retrieve.coverage import coverage_bonus
from funes.retrieve.exact import resolve, why_empty
from funes.retrieve.filters import Filters
from funes.retrieve.handles import session_handles
from funes.retrieve.neighbours import MAX_NEIGHBOURS, attach_neighbours
from funes.retrieve.places import attach_partners, distinct_places
from funes.retrieve.projects import project_lift
from funes.retrieve.recency import DEFAULT_HALF_LIFE_DAYS, check_half_life, recency_weight
from funes.retrieve.search import fulltext_leg, open_store, vector_leg
from funes.retrieve.second_pass import KIND_CROSS_ENCODER, load_second_pass
from funes.retrieve.tool_outputs import promote_outputs
from funes.retrieve.types import Hit, RecallResult

# Five places on a recall page (funes.retrieve.page): a median ~2.6k characters on the
# agentic benchmark's dev questions; the agents read the page, then expand one place.
DEFAULT_K = 5
# How deep each search goes; the union of both is what gets re-scored. 50 beat 30 on LoCoMo.
DEFAULT_CANDIDATES = 50
# Neighbours per hit: the prompt that started its turn and the reply that concluded it.
DEFAULT_NEIGHBORS = MAX_NEIGHBOURS
# A query is a question or a few keywords. Past this, recall refuses it before any work: each
# query word is a full-text term and the whole text is embedded, so a 1 MB query cost 27 s.
MAX_QUERY_CHARS = 8192


class RecallError(Exception):
    """Nothing could be searched (both legs failed); the message says why and what to do."""


def recall(
    query: str,
    *,
    k: int = DEFAULT_K,
    memory: str | None = None,
    candidates: int = DEFAULT_CANDIDATES,
    neighbors: int = DEFAULT_NEIGHBORS,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    second_pass: bool = True,
    now: datetime | None = None,
    timings: dict[str, float] | None = None,
    drop_slips: bool = True,
    **filters: str | None,
) -> RecallResult:
    """The passages of a memory that best answer `query`, with provenance. `filters` are
    keywords of `Filters.build` (FILTER_NAMES: harness, block_type, project, has, since,
    until, session); one that names nothing in the memory is dropped with a note
    (funes.retrieve.exact), unless `drop_slips` is False (several memories are read at once:
    a filter is a slip only if it names nothing in any of them).

    Raises ValueError for a bad filter or a query over MAX_QUERY_CHARS, MemoryNotFound when
    there is no memory, RecallError when neither search could run. One failing search is not
    an error: the other answers, and `RecallResult.notes` says so.
    """
    check_query_size(query)
    clock = _Clock(timings)
    now = now or datetime.now(UTC)
    half_life_days = check_half_life(half_life_days)
    chosen = Filters.build(now=now, **filters)
    # `--has` alone is a search: for its text, the way `grep -F` is.
    query = " ".join(query.split()) or " ".join((chosen.has or "").split())
    if not query:
        raise ValueError("empty query: say what to recall")
    store, label, notes = open_store(memory)
    clock.lap("open")
    result = RecallResult(query=query, hits=[], memory_label=label, notes=notes)
    from funes.sync.memory import is_default_spec

    if is_default_spec(memory):
        result.default_memory = label
    if store.count() == 0:
        return result
    clock.lap("count")
    resolved = resolve(store, chosen, drop_slips=drop_slips)
    where = resolved.where
    notes.extend(resolved.notes)
    result.exact = resolved.exact
    result.slipped = resolved.slipped
    clock.lap("filters")

    pool, query_vector = _first_pass(store, query, where, candidates, notes, clock)
    if not pool:
        # Several memories at once say it only once no memory had a hit (drop_slips).
        said = why_empty(resolved, store) if drop_slips else None
        notes.extend([said] if said else [])
        return result
    fulltext, vector = _features(pool, query_vector)
    scores = blend(FIRST_PASS, fulltext, vector)

    if second_pass:
        pool, scores = _second_pass(query, pool, fulltext, vector, scores, result, clock)
    scores = scores * block_priors([row["block_type"] or "" for row in pool])
    scores = scores * project_lift(query, [row.get("workdir") or "" for row in pool])
    scores = session_support(scores, [row["session_id"] or "" for row in pool])
    scores = scores + coverage_bonus(query, pool, scores)

    recency = [
        recency_weight(row["ts"] or "", now=now, half_life_days=half_life_days) for row in pool
    ]
    final = [float(score) * weight for score, weight in zip(scores, recency, strict=True)]
    pool, final = promote_answers(store.table, pool, final, where)
    clock.lap("answers")
    pool, final = promote_outputs(store.table, pool, final, where, query)
    clock.lap("tool outputs")
    ranked = sorted(((score, i) for i, score in enumerate(final)), key=lambda p: (-p[0], p[1]))
    distinct = distinct_places(_distinct_texts(ranked, pool), pool, limit=k)
    result.hits = [_hit(pool[i], score) for score, i in distinct]
    handles = session_handles(store, {hit.session_id for hit in result.hits})
    for hit in result.hits:
        hit.handle = handles.get(hit.session_id, "")
    result.subagents = name_subagents(store, [hit.session_id for hit in result.hits])
    clock.lap("subagents")
    if neighbors > 0 and result.hits:
        attach_neighbours(store.table, result.hits, neighbors)
        clock.lap("neighbours")
    if result.hits:
        attach_partners(store.table, result.hits)
        clock.lap("partners")
    return result


def name_subagents(store: Any, session_ids: list[str]) -> dict[str, tuple[str, str]]:
    """Each subagent session among `session_ids` → its parent's handle and its task (from the
    parent's Task call, else its first prompt), so a hit from `agent-f45…` says whose it is."""
    from funes.retrieve.subagents import describe, parents

    children = parents(store, sorted(set(session_ids)))
    if not children:
        return {}
    parent_handles = session_handles(store, set(children.values()))
    named: dict[str, tuple[str, str]] = {}
    for child, parent in children.items():
        about = describe(store, child, parent)
        task = about.task if about else ""
        named[child] = (parent_handles.get(parent, parent[:8]), task)
    return named


def check_query_size(query: str) -> None:
    """ValueError (one line, fit for the user) for a query longer than MAX_QUERY_CHARS."""
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(
            f"query too long: {len(query):,} characters, at most {MAX_QUERY_CHARS:,}; "
            "ask a question or give a few keywords"
        )


def _distinct_texts(ranked: list[tuple[float, int]], pool: list[dict]) -> list[tuple[float, int]]:
    """Drop passages whose text repeats a better-ranked one: a forked or resumed session
    re-records its parent's history, and the same words twice only waste the k slots."""
    seen: set[str] = set()
    distinct = []
    for score, i in ranked:
        key = " ".join((pool[i]["text"] or "").split())
        if key in seen:
            continue
        seen.add(key)
        distinct.append((score, i))
    return distinct


def _second_pass(
    query: str,
    pool: list[dict],
    fulltext: Any,
    vector: Any,
    scores: Any,
    result: RecallResult,
    clock: _Clock,
) -> tuple[list[dict], Any]:
    """Re-score the pool with the second pass and blend; on any failure keep the first pass."""
    import numpy as np

    reranker, why = load_second_pass()
    clock.lap("load second pass")
    if why:
        result.notes.append(why)
    if reranker is None:
        return pool, scores
    weights: Weights = WITH_CROSS_ENCODER if reranker.kind == KIND_CROSS_ENCODER else WITH_MINILM
    # Only the best of the pool is re-scored (a flat cost per recall); the rest keeps its
    # first-pass order, below every re-scored passage.
    order = np.argsort(-scores, kind="stable")
    top, rest = order[: reranker.pool], order[reranker.pool :]
    try:
        second = reranker.score(query, [pool[i]["text"] for i in top])
    except Exception as error:  # a broken model must not cost the user their results
        result.notes.append(
            f"second pass {reranker.kind} failed ({_short(error)}); ranked without it"
        )
        return pool, scores
    result.second_pass = reranker.kind
    clock.lap("second pass")
    rescored = blend(weights, fulltext[top], vector[top], second)
    below = scores[rest]
    if len(rest) and len(rescored):
        floor = float(rescored.min())
        below = below / max(float(below.max()), 1e-9) * floor * 0.999
    merged = np.concatenate([rescored, below]).astype(np.float32)
    return [pool[i] for i in np.concatenate([top, rest])], merged


def _first_pass(
    store: Any,
    query: str,
    where: str | None,
    candidates: int,
    notes: list[str],
    clock: _Clock,
) -> tuple[list[dict], Any]:
    """The union of both legs' candidates (each leg `candidates` deep), by chunk id."""
    failures: list[str] = []
    query_vector = None
    vector_rows: list[dict] = []
    try:
        from funes.index.embed import load_embedder

        embedder = load_embedder(store.model_id or None)
        query_vector = embedder.encode([query])[0]
        clock.lap("embed query")
        vector_rows = _on_newest(
            store, lambda: vector_leg(store.table, query_vector, where, candidates)
        )
        clock.lap("vector search")
    except Exception as error:  # the other leg still answers; the note says what failed
        failures.append(f"vector search failed ({_short(error)})")
    fulltext_rows: list[dict] = []
    try:
        fulltext_rows = _on_newest(
            store, lambda: fulltext_leg(store.table, query, where, candidates)
        )
        clock.lap("full-text search")
    except Exception as error:
        failures.append(f"full-text search failed ({_short(error)})")
    if len(failures) == 2:
        raise RecallError(
            "; ".join(failures) + " — `funes doctor --fix` rebuilds the indexes from the data"
        )
    for failure in failures:
        other = "full-text" if failure.startswith("vector") else "vector"
        notes.append(
            f"{failure}: results come from {other} search only; `funes doctor --fix` repairs it"
        )

    pool: dict[str, dict] = {}
    for row in vector_rows:
        row["_fulltext"] = 0.0
        pool[row["id"]] = row
    for row in fulltext_rows:
        if row["id"] in pool:
            pool[row["id"]]["_fulltext"] = float(row.get("_score") or 0.0)
        else:
            row["_fulltext"] = float(row.get("_score") or 0.0)
            pool[row["id"]] = row
    return list(pool.values()), query_vector


def _on_newest(store: Any, search: Any) -> list[dict]:
    """Run one search; if it fails, once more on the memory's newest version. A fold deletes
    the versions before it, so a recall that opened the memory just before may find its
    snapshot's files gone (funes.index.maintenance)."""
    try:
        return search()
    except Exception:
        with contextlib.suppress(Exception):
            store.table.checkout_latest()
        return search()


def _features(pool: list[dict], query_vector: Any) -> tuple[Any, Any]:
    import numpy as np

    fulltext = np.array([row["_fulltext"] for row in pool], dtype=np.float32)
    if query_vector is None:
        return fulltext, np.zeros(len(pool), dtype=np.float32)
    vectors = np.asarray([row["vector"] for row in pool], dtype=np.float32)
    return fulltext, vectors @ np.asarray(query_vector, dtype=np.float32)


def _hit(row: dict, score: float) -> Hit:
    return Hit(
        id=row["id"],
        session_id=row["session_id"] or "",
        turn_uuid=row["turn_uuid"] or "",
        seq=int(row["seq"] or 0),
        ts=row["ts"] or "",
        role=row["role"] or "",
        block_type=row["block_type"] or "",
        tool_name=row.get("tool_name"),
        harness=row.get("harness") or "",
        workdir=row.get("workdir") or "",
        repo=row.get("repo") or "",
        source_path=row.get("source_path") or "",
        text=row["text"] or "",
        score=round(score, 6),
        split_idx=int(row.get("split_idx") or 0),
    )


def _short(error: BaseException) -> str:
    from funes.lance import without_source_paths

    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return without_source_paths(text)[:160]


class _Clock:
    """Where the time goes, for bench/recall_latency.py (a no-op unless asked)."""

    def __init__(self, sink: dict[str, float] | None) -> None:
        self.sink = sink
        self.last = time.perf_counter()

    def lap(self, phase: str) -> None:
        if self.sink is None:
            return
        now = time.perf_counter()
        self.sink[phase] = self.sink.get(phase, 0.0) + (now - self.last) * 1000.0
        self.last = now

"""The JSON answers behind `funes ui`: each takes the query parameters of one request and returns
what the page shows. The same library calls as the CLI: recall, get, the session list."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from funes.retrieve.filters import FILTER_NAMES, FILTERS

Params = dict[str, str]
# The filters the session list takes (a session has no block type, and is not filtered by id).
SESSION_FILTERS = ("harness", "project", "since", "until")
MAX_K = 50


class BadRequest(ValueError):
    """The request is wrong; the message is for the person using the page."""


def _filters(params: Params, names: tuple[str, ...] = FILTER_NAMES) -> dict[str, Any]:
    """The `names` filters from the query parameters, each named as its CLI flag without the
    dashes (`type` for the block type), passed through as given (Filters.build validates)."""
    return {
        spec.name: (params.get(spec.flag.removeprefix("--")) or "").strip() or None
        for spec in FILTERS
        if spec.name in names
    }


def _int(params: Params, name: str, default: int, low: int, high: int) -> int:
    raw = (params.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number") from None
    return max(low, min(value, high))


def search(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.retrieve import recall, recall_json
    from funes.retrieve.formats import get_command, hit_memory, session_handle

    query = (params.get("q") or "").strip()
    if not query:
        raise BadRequest("type what to recall")
    result = recall(query, k=_int(params, "k", 10, 1, MAX_K), memory=memory, **_filters(params))
    data = recall_json(result)
    cuts = _cuts(memory, [h.id for h in result.hits])
    for hit, shown in zip(result.hits, data["hits"], strict=True):
        before, after = cuts.get(hit.id, (False, False))
        get = get_command(session_handle(hit), str(hit.seq), hit_memory(hit, result))
        shown["get_command"] = get
        shown.update(passage_view(hit.block_type, hit.tool_name, hit.text, before, after))
    return data


def passage_view(
    block_type: str, tool_name: str | None, text: str, starts_inside: bool, ends_inside: bool
) -> dict[str, Any]:
    """A hit's passage for the page: its HTML, and whether the block goes on before or after
    it (then the page marks the cut). A passage that starts inside its block starts inside a
    word too (splits overlap by characters): that partial word is left out."""
    from funes.inspect.render import block_html, tool_label_removed

    text = tool_label_removed(block_type, tool_name, text)
    if starts_inside:
        partial = re.match(r"\S{0,40}\s+", text)  # the word the cut went through, if short
        text = text[partial.end() :] if partial else text
    return {
        "html": block_html(block_type, tool_name, text),
        "starts_inside": starts_inside,
        "ends_inside": ends_inside,
    }


def _cuts(memory: str | None, chunk_ids: list[str]) -> dict[str, tuple[bool, bool]]:
    """chunk id → (its block has text before it, its block has text after it), for the chunks
    found in `memory` (a hit from another memory gets no mark: none is needed to read it)."""
    from funes.index.chunking import chunk_id
    from funes.retrieve.filters import quote_sql
    from funes.sync.memory import open_memory

    if not chunk_ids:
        return {}
    try:
        store = open_memory(memory).store
        ids = ", ".join(quote_sql(i) for i in chunk_ids)
        columns = ["id", "session_id", "turn_uuid", "block_idx", "split_idx"]
        rows = store.scan(columns, where=f"id IN ({ids})").to_pylist()
        following = {
            chunk_id(r["session_id"], r["turn_uuid"], r["block_idx"], r["split_idx"] + 1): r["id"]
            for r in rows
        }
        wanted = ", ".join(quote_sql(i) for i in following)
        found = store.scan(["id"], where=f"id IN ({wanted})").column("id").to_pylist()
    except Exception:
        return {}  # the marks are a courtesy: a search never fails for them
    continued = {following[i] for i in found}
    return {r["id"]: (int(r["split_idx"]) > 0, r["id"] in continued) for r in rows}


def sessions(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.inspect.sessions import session_page

    limit = _int(params, "limit", 100, 1, 5000)
    offset = _int(params, "offset", 0, 0, 10**9)
    text = (params.get("q") or "").strip()
    page = session_page(
        memory, offset=offset, limit=limit, text=text, **_filters(params, SESSION_FILTERS)
    )
    return {
        "sessions": [s.as_dict() for s in page.rows],
        "total": page.total,
        "subagents": page.subagents,
        "warmups": page.warmups,
        "offset": page.offset,
        "limit": page.limit,
    }


def session(memory: str | None, params: Params) -> dict[str, Any]:
    """One whole session, each block rendered, each Task/Agent call linked to the subagent
    session it started (`subagent`: its id and task), and, for a subagent, what it was asked
    (`session.task`)."""
    from funes.inspect.sessions import show_json, show_session

    session_id = (params.get("id") or "").strip()
    if not session_id:
        raise BadRequest("which session? (id missing)")
    data = _with_html(show_json(show_session(session_id, memory)))
    _link_subagents(memory, data)
    return data


def _link_subagents(memory: str | None, data: dict[str, Any]) -> None:
    from funes.inspect.tools import is_subagent_call
    from funes.retrieve.subagents import task_calls
    from funes.sync.memory import open_memory

    store = open_memory(memory).store
    session_id = data["session"]["session_id"]
    calls: dict[str, list[Any]] = {}
    tasks: dict[str, str] = {}
    for call in task_calls(store, session_id):
        calls.setdefault(call.turn_uuid, []).append(call)
        if call.subagent and call.description:
            tasks[call.subagent] = call.description
    data["session"]["subagent_tasks"] = tasks  # each subagent's task, to name its link
    for turn in data["turns"]:
        waiting = list(calls.get(turn["turn_uuid"], []))
        for block in turn["blocks"]:
            starts = block["block_type"] == "tool_use" and is_subagent_call(block["tool_name"])
            if starts and waiting:
                call = waiting.pop(0)
                block["subagent"] = {"session_id": call.subagent, "task": call.description}


def catchup(memory: str | None, params: Params) -> dict[str, Any]:
    """`funes catchup` for the page: the digest's text, ready to paste into a new session."""
    from funes.retrieve.catchup import build_catchup, catchup_json, format_catchup

    session_id = (params.get("id") or "").strip()
    if not session_id:
        raise BadRequest("name the session: catchup?id=SESSION")
    max_tokens = _int(params, "max_tokens", 1500, 200, 20_000)
    digest = build_catchup(session_id, memory, max_tokens=max_tokens)
    return {"text": format_catchup(digest, max_tokens), **catchup_json(digest)}


def turn(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.retrieve.get import get_json, get_turns

    session_id = (params.get("session") or "").strip()
    turn_uuid = (params.get("turn") or "").strip()
    if not session_id or not turn_uuid:
        raise BadRequest("which turn? (session and turn are needed)")
    window = _int(params, "window", 2, 0, 50)
    return _with_html(get_json(get_turns(session_id, turn_uuid, window=window, memory=memory)))


def _with_html(data: dict[str, Any]) -> dict[str, Any]:
    """Each block of `data["turns"]` gets `html` (rendered) beside its `text` (as stored, for
    search within the page), the tool label the indexer adds taken out of both."""
    from funes.inspect.render import block_html, tool_label_removed
    from funes.inspect.tools import brief
    from funes.retrieve.said import is_compaction, request_text

    for turn in data["turns"]:
        for block in turn["blocks"]:
            kind, tool = block["block_type"], block["tool_name"]
            block["text"] = tool_label_removed(kind, tool, block["text"])
            block["html"] = block_html(kind, tool, block["text"], turn.get("role", ""))
            # A compaction summary is labelled so, not as what the agent or the user said.
            block["compaction"] = kind == "text" and is_compaction(block["text"], turn["role"])
            # What the person asked in it ("" for harness text): the page's outline lists these.
            user_text = kind == "text" and turn["role"] == "user"
            block["asked"] = request_text(block["text"]) if user_text else ""
            if kind == "tool_use":
                block["brief"] = brief(tool, block["text"])
    return data


def overview(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.inspect.overview import overview as build
    from funes.inspect.overview import overview_json

    return overview_json(build(memory))


def sync(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.inspect.syncview import sync_views

    return {"remotes": [v.as_dict() for v in sync_views()]}


def resume(memory: str | None, params: Params) -> dict[str, Any]:
    """The command that reopens a session in its agent (the page shows it to copy; it runs
    nothing), and why it cannot run here, if it cannot."""
    from funes.inspect.resume import plan_resume

    session_id = (params.get("id") or "").strip()
    if not session_id:
        raise BadRequest("name the session: resume?id=SESSION")
    return plan_resume(session_id, memory).as_dict()


ROUTES: dict[str, Callable[[str | None, Params], dict[str, Any]]] = {
    "search": search,
    "sessions": sessions,
    "session": session,
    "turn": turn,
    "overview": overview,
    "sync": sync,
    "resume": resume,
    "catchup": catchup,
}


def answer(name: str, memory: str | None, params: Params) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON body) for API call `name`; errors come back as {"error": message}."""
    from funes.index.store import MemoryNotFound
    from funes.retrieve import RecallError, TurnNotFound

    handler = ROUTES.get(name)
    if handler is None:
        return 404, {"error": f"no such call: {name}"}
    try:
        return 200, handler(memory, params)
    except (BadRequest, ValueError) as error:
        return 400, {"error": str(error)}
    except TurnNotFound as error:
        return 404, {"error": str(error)}
    except MemoryNotFound:
        return 404, {"error": "no memory yet: run `funes add <agent>` or `funes index` first"}
    except RecallError as error:
        return 503, {"error": str(error)}

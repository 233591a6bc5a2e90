"""The JSON answers behind `funes ui`: each takes the query parameters of one request and returns
what the page shows. The same library calls as the CLI: recall, get, the session list."""

from __future__ import annotations

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

    query = (params.get("q") or "").strip()
    if not query:
        raise BadRequest("type what to recall")
    result = recall(query, k=_int(params, "k", 10, 1, MAX_K), memory=memory, **_filters(params))
    return recall_json(result)


def sessions(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.inspect.sessions import list_sessions

    limit = _int(params, "limit", 200, 1, 5000)
    found = list_sessions(memory, limit=limit, **_filters(params, SESSION_FILTERS))
    return {"sessions": [s.as_dict() for s in found]}


def session(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.inspect.sessions import show_json, show_session

    session_id = (params.get("id") or "").strip()
    if not session_id:
        raise BadRequest("which session? (id missing)")
    return show_json(show_session(session_id, memory))


def turn(memory: str | None, params: Params) -> dict[str, Any]:
    from funes.retrieve.get import get_json, get_turns

    session_id = (params.get("session") or "").strip()
    turn_uuid = (params.get("turn") or "").strip()
    if not session_id or not turn_uuid:
        raise BadRequest("which turn? (session and turn are needed)")
    window = _int(params, "window", 2, 0, 50)
    return get_json(get_turns(session_id, turn_uuid, window=window, memory=memory))


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

"""What state a memory is in: counts per agent, model, backlog, second pass, wired agents."""

from __future__ import annotations

from typing import Any

from funes.index.state import IndexState


def memory_status(spec: str | None = None) -> dict[str, Any]:
    from funes.index.store import MemoryNotFound
    from funes.memory import open_memory

    state = IndexState.load()
    info: dict[str, Any] = {
        "memory": None,
        "exists": False,
        "chunks": 0,
        "sessions": 0,
        "turns": 0,
        "agents": {},
        "model": None,
        "fts_index": False,
        "backlog_units": len(state.pending),
        "last_indexed": state.last_indexed or None,
        "notes": [],
    }
    try:
        opened = open_memory(spec)
    except MemoryNotFound as exc:
        info["notes"].append(str(exc))
        info["memory"] = spec or "local"
        _add_extras(info)
        return info
    store = opened.store
    info.update(
        memory=opened.label,
        exists=True,
        model={"id": store.model_id, "hash": store.model_hash, "dim": store.dim},
        fts_index=store.has_fts_index(),
    )
    info["notes"].extend(opened.notes)
    if opened.remote:
        from funes.project.curate import pending_note

        info["notes"].extend(pending_note(opened.remote))
    table = store.scan(["id", "harness", "session_id", "turn_uuid"])
    info["chunks"] = table.num_rows
    if table.num_rows:
        # One grouping by (agent, session, turn) answers every count.
        turns = table.group_by(["harness", "session_id", "turn_uuid"]).aggregate([("id", "count")])
        info["turns"] = turns.num_rows
        info["sessions"] = len(set(turns.column("session_id").to_pylist()))
        per_agent = turns.group_by("harness").aggregate(
            [("session_id", "count_distinct"), ("turn_uuid", "count"), ("id_count", "sum")]
        )
        for row in per_agent.to_pylist():
            info["agents"][row["harness"] or "unknown"] = {
                "chunks": row["id_count_sum"],
                "sessions": row["session_id_count_distinct"],
                "turns": row["turn_uuid_count"],
            }
    _add_extras(info)
    return info


def _add_extras(info: dict[str, Any]) -> None:
    """Facts owned by other layers, when those layers are installed."""
    try:
        from funes.retrieve import second_pass_status

        info["second_pass"] = second_pass_status()
    except ImportError:
        info["second_pass"] = None
    try:
        from funes.agents import agents_status

        info["wired_agents"] = agents_status()
    except ImportError:
        info["wired_agents"] = None

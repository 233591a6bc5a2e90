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
    table = store.scan(["harness", "session_id", "turn_uuid"])
    info["chunks"] = table.num_rows
    if table.num_rows:
        import pyarrow.compute as pc

        info["sessions"] = len(pc.unique(table.column("session_id")))
        info["turns"] = len(
            table.group_by(["session_id", "turn_uuid"]).aggregate([]).column("session_id")
        )
        per_agent = table.group_by("harness").aggregate(
            [("session_id", "count_distinct"), ("turn_uuid", "count"), ("harness", "count")]
        )
        for row in per_agent.to_pylist():
            turns = len(
                table.filter(pc.equal(table.column("harness"), row["harness"]))
                .group_by(["session_id", "turn_uuid"])
                .aggregate([])
            )
            info["agents"][row["harness"] or "unknown"] = {
                "chunks": row["harness_count"],
                "sessions": row["session_id_count_distinct"],
                "turns": turns,
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

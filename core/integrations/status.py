"""What state a memory is in: counts per agent, model, backlog, second pass, wired agents; and
that state as the lines `funes status` and the MCP status tool print."""

from __future__ import annotations

from typing import Any

from funes.index.state import IndexState


def memory_status(spec: str | None = None) -> dict[str, Any]:
    from funes.index.store import MemoryNotFound
    from funes.sync.memory import open_memory

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
    info["at_risk_units"] = _at_risk_units()
    try:
        from funes.retrieve import second_pass_status

        info["second_pass"] = second_pass_status()
    except ImportError:
        info["second_pass"] = None
    try:
        from funes.integrations.agents import agents_status

        info["wired_agents"] = agents_status()
    except ImportError:
        info["wired_agents"] = None


def _at_risk_units() -> int | None:
    """How many transcripts their agent deletes within days are not indexed whole (None when
    that cannot be read: it never stops `status`)."""
    from funes.index.at_risk import unindexed_at_risk

    try:
        return len(unindexed_at_risk().at_risk)
    except Exception:  # an agent's settings or folders that cannot be read
        return None


def render_status(info: dict[str, Any]) -> str:
    lines = [f"memory: {info['memory']}"]
    if not info["exists"]:
        lines.append("no index yet — run `funes add <agent>` or `funes index`")
    else:
        lines.append(
            f"chunks: {info['chunks']}  sessions: {info['sessions']}  turns: {info['turns']}"
        )
        for agent, counts in sorted(info["agents"].items()):
            lines.append(
                f"  {agent:<12} {counts['sessions']:>6} sessions {counts['turns']:>8} turns "
                f"{counts['chunks']:>9} chunks"
            )
        model = info["model"] or {}
        lines.append(
            f"model: {model.get('id')} ({str(model.get('hash'))[:12]}, {model.get('dim')}-d)"
        )
        if not info["fts_index"]:
            lines.append("full-text index: missing — recall uses vectors only until `funes index`")
    if info.get("last_indexed"):
        lines.append(f"last indexed: {info['last_indexed']}")
    if info["backlog_units"]:
        lines.append(f"backlog: {info['backlog_units']} files — run `funes index`")
    if info.get("at_risk_units"):
        from funes.index.at_risk import WARN_DAYS

        lines.append(
            f"at risk: {info['at_risk_units']} transcript(s) their agent deletes within "
            f"{WARN_DAYS:g} days are not indexed whole — run `funes index` (`funes doctor` "
            "names them)"
        )
    second = info.get("second_pass")
    if isinstance(second, dict):
        said = f"second pass: {second.get('summary') or second.get('kind') or second}"
        extra = second.get("note") or second.get("hint")
        lines.append(f"{said} — {extra}" if extra else said)
    wired = info.get("wired_agents")
    if isinstance(wired, dict) and wired:
        for agent, detail in sorted(wired.items()):
            lines.append(f"agent {agent}: {_describe_wiring(detail)}")
    lines.extend(f"note: {note}" for note in info["notes"])
    return "\n".join(lines)


def _describe_wiring(detail: Any) -> str:
    """One line per wired agent: bound memory, whether its hook has fired, what is queued, and
    anything its installer finds amiss in the agent's config now."""
    if not isinstance(detail, dict):
        return str(detail)
    found = detail.get("config")
    config: dict[str, Any] = found if isinstance(found, dict) else {}
    if config.get("error"):
        parts = [f"config problem: {config['error']}"]
    elif config.get("installed") is False:
        parts = ["no longer wired in its config (run `funes add` again)"]
    else:
        parts = ["wired"]
    parts.append(f"memory {detail.get('memory') or 'local'}")
    fired = detail.get("hook_last_fired")
    parts.append(f"hook last fired {fired}" if fired else "hook not fired yet")
    if config.get("registered_with_claude") is False:
        parts.append("plugin not loaded by Claude Code yet (run the commands `funes add` printed)")
    if config.get("hook_trusted") is False:
        parts.append("Stop hook not trusted yet (`funes add codex --trust-hooks`; notify indexes)")
    if detail.get("queued"):
        parts.append(f"{detail['queued']} turn(s) queued for indexing")
    return ", ".join(parts)

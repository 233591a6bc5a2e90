"""`funes status`: what is in a memory and which agents feed it."""

from __future__ import annotations

import json
from typing import Any

import click


@click.command("status")
@click.argument("memory", required=False)
@click.option("--memory", "memory_opt", help="Memory to describe (local path, ORG/REPO, hf://…).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(memory: str | None, memory_opt: str | None, as_json: bool) -> None:
    """Show a memory's contents per agent, its model, backlog and wiring.

    \b
    Examples:
      funes status
      funes status --json
      funes status --memory my-org/team-memory
    """
    from funes.status import memory_status

    info = memory_status(memory_opt or memory)
    if as_json:
        click.echo(json.dumps(info, indent=2, default=str))
        return
    click.echo(render_status(info))


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
    second = info.get("second_pass")
    if isinstance(second, dict):
        lines.append(f"second pass: {second.get('summary') or second.get('kind') or second}")
    wired = info.get("wired_agents")
    if isinstance(wired, dict) and wired:
        for agent, detail in sorted(wired.items()):
            lines.append(f"agent {agent}: {_describe_wiring(detail)}")
    lines.extend(f"note: {note}" for note in info["notes"])
    return "\n".join(lines)


def _describe_wiring(detail: Any) -> str:
    if not isinstance(detail, dict):
        return str(detail)
    parts = ["wired" if detail.get("installed", True) else "not wired"]
    fired = detail.get("last_hook") or detail.get("hook_last_fired")
    parts.append(f"hook last fired {fired}" if fired else "hook not fired yet")
    if detail.get("memory"):
        parts.append(f"bound to {detail['memory']}")
    return ", ".join(parts)

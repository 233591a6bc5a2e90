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

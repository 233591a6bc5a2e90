"""`funes doctor`: one check per thing that can be wrong, each saying what to do.

A probe is a function returning checks; a check may carry a `repair`, a safe, idempotent action
that `run_checks(fix=True)` applies to failing checks before probing again. Only repairs that
lose nothing are offered: build a missing or unreadable index from the stored rows and fold new
rows into the indexes, set a newest version that cannot be opened aside (its turns come back
from the transcripts at the next `funes index`), make the home private, drop old versions
(storage upkeep as `funes.index.maintenance` does it), put failed hook entries back in the
queue, start the queue worker, read the transcripts an agent is about to delete. A writer
holding the lock for hours is named, never killed: the kernel frees a flock when its holder
dies, so there is no stale lock file to clear.

A check that could not be confirmed (the agent's CLI is not here to be asked, a hook that has
not fired yet) is a warning, never a pass: `ok` is false, `status` is `warn`, and the summary
says so; only failures make the exit status 1 (warnings alone: 2).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from funes.inspect.check import Check, warning

__all__ = ["Check", "exit_status", "format_human", "format_json", "run_checks", "warning"]


Probe = Callable[[], list[Check]]


def probes(deep: bool = False) -> list[Probe]:
    from funes.inspect import (
        checks_agents,
        checks_local,
        checks_remote,
        checks_retention,
        checks_service,
    )

    return [
        checks_local.home_checks,
        checks_local.memory_checks,
        checks_local.backlog_checks,
        checks_retention.retention_checks,
        checks_local.lock_checks,
        checks_local.queue_checks,
        checks_local.at_rest_checks,
        checks_service.service_checks,
        (lambda: checks_agents.agent_checks(deep=True)) if deep else checks_agents.agent_checks,
        checks_remote.remote_checks,
    ]


def run_checks(fix: bool = False, deep: bool = False) -> list[Check]:
    """Every check, in a stable order. With `fix`, failing checks that have a safe repair are
    repaired and their probe runs again; the check then says what was done. With `deep`, the
    MCP server each agent is configured to run is started and asked for its tools."""
    results: list[Check] = []
    for probe in probes(deep):
        checks = _run_probe(probe)
        if fix:
            checks = _repair(probe, checks)
        results.extend(checks)
    return results


def _run_probe(probe: Probe) -> list[Check]:
    try:
        return probe()
    except Exception as error:  # one broken probe must not hide every other check
        name = getattr(probe, "__name__", "check").replace("_checks", "")
        return [
            Check(
                name=name,
                ok=False,
                detail=f"the check itself failed: {type(error).__name__}: {error}",
                fix="report this with the output of `funes doctor --json`",
            )
        ]


def _repair(probe: Probe, checks: list[Check]) -> list[Check]:
    done: dict[str, str] = {}
    failed: dict[str, str] = {}  # check name → what to do instead of the repair that failed
    ran: dict[int, tuple[str, str | None]] = {}  # one repair shared by several checks runs once
    for check in checks:
        if check.ok or check.repair is None:
            continue
        key = id(check.repair)
        if key not in ran:
            try:
                ran[key] = (check.repair(), None)
            except Exception as error:
                ran[key] = _repair_failure(error)
        done[check.name], instead = ran[key]
        if instead is not None:
            failed[check.name] = instead
    if not done:
        return checks
    again = _run_probe(probe)
    for check in again:
        if check.name in done:
            check.detail = f"{done[check.name]}; now: {check.detail}"
        if check.name in failed and not check.ok:
            # `--fix` just failed at this: never advise it again; say what would help.
            check.repair, check.fix = None, failed[check.name] or check.fix
    return again


def _repair_failure(error: Exception) -> tuple[str, str]:
    """What a failed repair says (never a Rust source path), and what to do instead: on a
    full disk, that nothing was lost and how much room it needs."""
    from funes.index.diskfull import disk_full, is_disk_full, needed_for_memory
    from funes.lance import without_source_paths
    from funes.paths import local_memory_dir

    if is_disk_full(error):
        memory = local_memory_dir()
        full = disk_full(memory, needed_for_memory(memory))
        return f"repair failed: {full}", "free some space on that disk, then repair again"
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"repair failed: {type(error).__name__}: {without_source_paths(first)}", ""


def all_ok(checks: list[Check]) -> bool:
    return all(c.ok for c in checks)


def exit_status(checks: list[Check]) -> int:
    """0: every check passes; 1: one fails; 2: none fails but some could not be confirmed."""
    if any(c.status == "fail" for c in checks):
        return 1
    return 0 if all_ok(checks) else 2


def format_json(checks: list[Check]) -> str:
    data = {
        "ok": all_ok(checks),
        "failing": sum(c.status == "fail" for c in checks),
        "warnings": sum(c.status == "warn" for c in checks),
        "checks": [c.as_dict() for c in checks],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def format_human(checks: list[Check]) -> str:
    lines = []
    marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
    for check in checks:
        lines.append(f"{marks[check.status]} {check.name}: {check.detail}")
        if not check.ok and check.fix:
            lines.append(f"     → {check.fix}")
    failing = sum(c.status == "fail" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    if failing or warned:
        parts = []
        if failing:
            parts.append(f"{failing} " + ("check fails" if failing == 1 else "checks fail"))
        if warned:
            parts.append(f"{warned} " + ("warning" if warned == 1 else "warnings"))
        repairable = sum(not c.ok and c.repair is not None for c in checks)
        tail = f"; `funes doctor --fix` repairs {repairable}" if repairable else ""
        lines.append(", ".join(parts) + tail)
    else:
        lines.append(f"all {len(checks)} checks pass")
    return "\n".join(lines) + "\n"

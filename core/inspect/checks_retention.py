"""Doctor check: transcripts an agent deletes within days that the memory does not hold whole.

Claude Code (cleanupPeriodDays, default 30 days), Gemini CLI (general.sessionRetention,
default 30 days) and Hermes (sessions.auto_prune) delete their own transcripts; what funes
indexed stays. This check reads each agent's real setting and names what would be lost, with
the command that saves it.
"""

from __future__ import annotations

import time
from pathlib import Path

from funes.inspect.check import Check, warning
from funes.model import AGENT_HARNESS

_SHOWN = 3


def agent_name(harness: str) -> str:
    """What `funes add` calls the agent that writes `harness` (claude_code → claude)."""
    return next((agent for agent, h in AGENT_HARNESS.items() if h == harness), harness)


def retention_checks() -> list[Check]:
    from funes.index.at_risk import WARN_DAYS, unindexed_at_risk

    report = unindexed_at_risk()
    if not report.rules:
        return [Check("agent retention", True, "no agent here deletes its own transcripts")]
    rules = "; ".join(rule.describe() for rule in report.rules)
    if not report.at_risk:
        return [
            Check(
                "agent retention",
                True,
                f"{rules}; all it deletes within {WARN_DAYS:g} days is indexed",
            )
        ]
    now = time.time()
    shown = [
        f"{risk.path}{_sessions(risk.sessions)} ({_when(risk.deadline, now)})"
        for risk in report.at_risk[:_SHOWN]
    ]
    more = len(report.at_risk) - _SHOWN
    agents = sorted({agent_name(risk.harness) for risk in report.at_risk})
    keep = " or ".join(f"`funes add {agent} --keep-transcripts`" for agent in agents)
    check = warning(
        "agent retention",
        f"{len(report.at_risk)} transcript(s) their agent deletes within {WARN_DAYS:g} days "
        f"are not indexed whole: {'; '.join(shown)}"
        + (f"; … {more} more" if more > 0 else "")
        + f" ({rules})",
        f"run `funes index` now (it reads these first; `funes doctor --fix` reads just these); "
        f"to keep transcripts longer: {keep}",
    )
    paths = list(dict.fromkeys(risk.path for risk in report.at_risk))
    check.repair = lambda: _index_now(paths)
    return [check]


def _index_now(paths: list[str]) -> str:
    """The repair: read the transcripts at risk into the local memory now."""
    from funes.index.indexer import index

    done = index([p for p in paths if Path(p).exists()])
    return f"indexed {done.units_read} transcript(s) their agent was about to delete"


def _sessions(sessions: list[str]) -> str:
    if not sessions:
        return ""
    listed = ", ".join(sessions[:_SHOWN]) + (" …" if len(sessions) > _SHOWN else "")
    return f" sessions {listed}"


def _when(deadline: float, now: float) -> str:
    left = deadline - now
    if left <= 0:
        return "deleted the next time its agent starts"
    hours = left / 3600
    return f"deleted in {hours:.0f} hours" if hours < 24 else f"deleted in {hours / 24:.1f} days"

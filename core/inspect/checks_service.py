"""Doctor's look at the memory's resident service (`funes.integrations.warm`): which one runs,
and whether any MCP server works in-process because none could start."""

from __future__ import annotations

from funes.inspect.check import Check, warning
from funes.paths import logs_dir


def service_checks() -> list[Check]:
    from funes.integrations.resident import render_service, service_summary

    summary = service_summary()
    lines = render_service(summary)
    if summary.get("unresponsive"):
        return [
            warning(
                "resident service",
                " ".join(line.strip() for line in lines).removeprefix("service: "),
                "a stopped service (kill -STOP) resumes with kill -CONT; otherwise end it and "
                f"the next call starts another (see {logs_dir() / 'warm.log'})",
            )
        ]
    fallback = summary.get("fallback")
    if fallback:
        return [
            warning(
                "resident service",
                " ".join(line.strip() for line in lines),
                f"an MCP server holds its own copy of the memory (~300 MB); see "
                f"{logs_dir() / 'warm.log'}, then restart that agent session",
            )
        ]
    detail = " ".join(line.strip() for line in lines).removeprefix("service: ")
    return [Check("resident service", True, detail)]

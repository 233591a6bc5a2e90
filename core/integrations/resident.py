"""What `funes status` and `funes doctor` say about the memory's resident service: which one
runs, since when, how much memory it holds, who calls it, and any MCP server that works
in-process because none could start."""

from __future__ import annotations

import fcntl
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from funes.integrations import warm


def service_summary() -> dict[str, Any]:
    """{"running", "off", and the service's own info when it runs, "fallback" when an MCP
    server works in-process}."""
    from funes.integrations.thin_mcp import fallback_note

    off = warm.idle_seconds() <= 0
    info = None if off else warm.service_info()
    summary: dict[str, Any] = {"running": info is not None, "off": off}
    if info is not None:
        summary |= info
    elif not off and _lock_held(warm.lock_path(warm.socket_path())):
        summary["unresponsive"] = True  # it holds the memory's lock but answers nothing
    summary["fallback"] = fallback_note()
    return summary


def render_service(summary: dict[str, Any]) -> list[str]:
    if summary.get("off"):
        lines = [f"service: off ({warm.IDLE_ENV}=0): every call opens the memory itself"]
    elif summary.get("unresponsive"):
        lines = [
            "service: holds the lock but does not answer (stopped or wedged): calls work "
            "in-process meanwhile"
        ]
    elif not summary.get("running"):
        lines = ["service: not running (the next recall or MCP call starts it)"]
    else:
        lines = [f"service: pid {summary['pid']} {_since(summary['since'])}, {_size(summary)}"]
        callers = summary.get("callers") or []
        kinds = Counter(str(c.get("client")) for c in callers)
        who = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())) or "none now"
        lines.append(
            f"  callers: {len(callers)} ({who}); {summary.get('answered', 0)} calls answered, "
            f"{summary.get('in_flight', 0)} in flight"
        )
    fallback = summary.get("fallback")
    if fallback:
        lines.append(
            f"  note: MCP server pid {fallback['pid']} works in-process: {fallback['reason']}"
        )
    return lines


def _lock_held(lock: Path) -> bool:
    """True when a process holds the service lock `lock` (a live service, answering or not)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _since(started: float) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started))
    minutes = max(0, int((time.time() - started) // 60))
    return f"since {stamp} ({minutes} min)"


def _size(summary: dict[str, Any]) -> str:
    rss = summary.get("rss_bytes")
    return f"{rss / 2**20:.0f} MB resident" if isinstance(rss, int) else "memory use unknown"

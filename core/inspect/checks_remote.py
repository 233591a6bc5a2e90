"""Checks of every Hub memory this machine is bound to: reachable, and how old the copy is."""

from __future__ import annotations

import calendar
import time

from funes.inspect.check import Check


def remote_checks() -> list[Check]:
    from funes.inspect.syncview import sync_views

    return [_remote_check(view) for view in sync_views()]


def _age(iso: str | None) -> str:
    if not iso:
        return "never"
    seconds = time.time() - calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ"))
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} days ago"


def _remote_check(view) -> Check:  # view: funes.inspect.syncview.RemoteView
    from funes.memory_spec import parse_remote_spec
    from funes.sync.hub import HubError, HubOffline, HubRemote, RepoMissing

    name = f"remote {view.uri}"
    copy = (
        f"copy at commit {view.commit[:8]} checked {_age(view.checked_at)}, "
        f"{view.remote_chunks} chunks"
        if view.cached
        else "no copy cached here yet"
    )
    pending = (
        f"; {view.local_only} local chunk(s) not on it (unpushed or held back by the secret gate)"
        if view.local_only
        else ""
    )
    who = [f"bound by {', '.join(view.bound_by)}"] if view.bound_by else []
    who += [f"read by {', '.join(view.read_by)}"] if view.read_by else []
    bound = f" ({'; '.join(who)})" if who else ""
    try:
        HubRemote(parse_remote_spec(view.spec)).head()
    except RepoMissing as error:
        fix = (
            f"run `funes push {view.spec} --yes` to create it"
            if view.bound_by
            else "check the name: it is only read here, so whoever publishes it creates it"
        )
        return Check(name, False, f"{error}{bound}", fix)
    except HubOffline as error:
        fallback = (
            "recall uses the cached copy"
            if view.cached
            else "recall from it is an error until it is reached once (no copy here)"
        )
        return Check(
            name,
            False,
            f"unreachable ({error}); {fallback}; {copy}{bound}",
            "check the network (and HF_ENDPOINT); nothing to repair locally",
        )
    except HubError as error:
        return Check(name, False, f"{error}{bound}", "set a valid HF_TOKEN or run `hf auth login`")
    return Check(name, True, f"reachable; {copy}{pending}{bound}")

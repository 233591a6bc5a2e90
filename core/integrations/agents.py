"""Which agents funes is wired into, the memory each is bound to, and when their hooks last fired.

Two kinds of state, kept apart so the per-turn hook never races `funes add`:
- `$FUNES_HOME/agents.json`: one record per wired agent (written by `funes add`/`remove` only,
  atomically): when it was installed, the memory it is bound to, the files and notes the
  installer reported.
- `$FUNES_HOME/hooks/<agent>.fired`: touched by every hook run; its mtime is the last firing. A
  touch is atomic and cheap, so many hooks firing at once never corrupt anything.

This module is on the hook's import path: standard library only.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Protocol

from funes.paths import ensure_writable_home, funes_home


class _Report(Protocol):  # funes.installers.base.InstallReport, without importing installers
    changed: list[Path]
    notes: list[str]


def state_path() -> Path:
    return funes_home() / "agents.json"


def _fired_path(agent: str) -> Path:
    return funes_home() / "hooks" / f"{agent}.fired"


def _iso(epoch_s: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch_s))


def _now_iso() -> str:
    return _iso(time.time())


def _load() -> dict[str, Any]:
    try:
        data = json.loads(state_path().read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    agents = data.get("agents") if isinstance(data, dict) else None
    return agents if isinstance(agents, dict) else {}


def _save(agents: dict[str, Any]) -> None:
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"agents": agents}, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def record_install(
    agent: str, report: _Report, memory: str | None, reads: list[str] | None = None
) -> None:
    """Remember that `agent` is wired (and to which memory, plus the memories it only reads);
    a re-install keeps the first date."""
    agents = _load()
    previous = agents.get(agent, {})
    agents[agent] = {
        "installed_at": previous.get("installed_at") or _now_iso(),
        "updated_at": _now_iso(),
        "memory": memory,
        "reads": list(reads or []),
        "files": sorted({*previous.get("files", []), *(str(p) for p in report.changed)}),
        "notes": list(report.notes),
    }
    _save(agents)


def record_remove(agent: str) -> None:
    """Forget `agent` (its hook stamp too); the memory itself is never touched."""
    agents = _load()
    if agents.pop(agent, None) is not None:
        _save(agents)
    _fired_path(agent).unlink(missing_ok=True)


def record_hook_fired(agent: str) -> None:
    """Stamp the time `agent`'s hook ran; cheap and safe to call from many processes at once."""
    path = _fired_path(agent)
    try:
        path.touch()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()


def bound_memory(agent: str) -> str | None:
    """The memory spec `agent` was bound to by `funes add`, or None for the local default."""
    memory = _load().get(agent, {}).get("memory")
    return memory if isinstance(memory, str) and memory else None


def read_only_memories(agent: str) -> list[str]:
    """The memories `agent` reads but never writes to (`funes add <agent> M --read-only`)."""
    reads = _load().get(agent, {}).get("reads")
    return [r for r in reads if isinstance(r, str) and r] if isinstance(reads, list) else []


def hook_last_fired(agent: str) -> str | None:
    """ISO-8601 UTC time of the last hook run for `agent`, or None if it never fired."""
    try:
        mtime = _fired_path(agent).stat().st_mtime
    except FileNotFoundError:
        return None
    return _iso(mtime)


def wired_agents() -> dict[str, dict[str, Any]]:
    """Every wired agent → its record, plus `hook_fired` and `hook_last_fired` (ISO or None)."""
    wired: dict[str, dict[str, Any]] = {}
    for agent, record in sorted(_load().items()):
        last = hook_last_fired(agent)
        wired[agent] = {**record, "hook_fired": last is not None, "hook_last_fired": last}
    return wired


def agents_status() -> dict[str, dict[str, Any]]:
    """For `funes status`: every wired agent → its record (as `wired_agents`), plus `queued`
    (its hook firings waiting for the worker) and `config` (what its installer finds in the
    agent's own config now, e.g. a Codex hook not trusted yet, or a config edited away)."""
    from funes.installers import installer_for

    queued = _queued_per_agent()
    status: dict[str, dict[str, Any]] = {}
    for agent, record in wired_agents().items():
        try:
            config: dict[str, Any] = dict(installer_for(agent).status())
        except Exception as error:  # status must render even when an installer cannot look
            config = {"error": str(error)}
        status[agent] = {**record, "queued": queued.get(agent, 0), "config": config}
    return status


def _queued_per_agent() -> dict[str, int]:
    counts: dict[str, int] = {}
    queue = funes_home() / "queue"
    for entry in queue.glob("*.json") if queue.is_dir() else []:
        try:
            agent = json.loads(entry.read_text()).get("agent", "")
        except (OSError, ValueError, AttributeError):
            continue  # drained (or half-read) meanwhile
        counts[agent] = counts.get(agent, 0) + 1
    return counts


def add_agent(
    agent: str,
    memory: str | None = None,
    *,
    budget_s: float | None = 60.0,
    progress: Any = None,
    trust_hooks: bool = False,
    read_only: bool = False,
    keep_transcripts: bool = False,
) -> dict[str, Any]:
    """`funes add`: index `agent`'s recent history (within `budget_s`; None skips it), wire the
    plugin and hook, bind `memory`, and start publishing it when the sync layer is present.
    With `read_only`, `memory` is added to what the agent reads (its own memory, and every
    read-only one so far) and is never written or pushed to; the binding stays as it was.
    The notes name the agent's own retention; `keep_transcripts` lengthens it
    (funes.installers.retention).

    Returns {"agent", "memory", "indexed", "changed", "notes"}; raises ConfigError for a
    malformed agent config (nothing changed) and RuntimeError when the agent's CLI fails.
    """
    from funes.installers import installer_for
    from funes.model import normalise_harness

    memory = None if memory in (None, "", "local") else _absolute(memory)
    reads = read_only_memories(agent)
    if read_only:
        if memory is None:
            raise ValueError("--read-only needs the MEMORY the agent should read")
        reads = [*[r for r in reads if r != memory], memory]
        memory = bound_memory(agent)  # what its turns go to stays as it was
    installer = installer_for(agent)
    installer.check()  # a malformed agent config stops `add` before anything is indexed
    ensure_writable_home()
    notes: list[str] = []
    indexed: dict[str, Any] | None = None
    if budget_s is not None and budget_s > 0:
        indexed, note = _seed_index(normalise_harness(agent), budget_s, progress, memory)
        notes += [note] if note else []
    # Several memories reach the agent's tools as one comma-separated argument.
    report = installer.install(",".join([memory or "local", *reads]) if reads else memory)
    if trust_hooks and hasattr(installer, "trust_hooks"):
        trusted = installer.trust_hooks()
        notes.append(f"trusted {len(trusted)} hook(s) through codex app-server")
        report.notes = [n for n in report.notes if "trust" not in n]
    from funes.installers.retention import keep_transcripts as keep
    from funes.installers.retention import retention_note

    if keep_transcripts:  # after the install: its backup of the settings is the user's own
        keep(agent, report)
    elif note := retention_note(agent):
        report.notes.append(note)
    record_install(agent, report, memory, reads)
    if memory and not read_only:
        notes.append(_publish(memory))
    if reads:
        notes.append(
            f"{agent} also reads {', '.join(reads)} (read-only: its turns are never written or "
            "pushed there)"
        )
    return {
        "agent": agent,
        "memory": memory or "local",
        "reads": reads,
        "indexed": indexed,
        "changed": [str(p) for p in report.changed],
        "notes": [*report.notes, *notes],
    }


def _absolute(memory: str) -> str:
    """A folder memory as an absolute path: the agent's tools run in other directories."""
    from funes.memory_spec import is_remote_spec

    return memory if is_remote_spec(memory) else str(Path(memory).expanduser().absolute())


def _seed_index(
    harness: str, budget_s: float, progress: Any, memory: str | None = None
) -> tuple[dict[str, Any] | None, str]:
    """A budgeted index of one agent's history into the local memory its turns go to (a bound
    folder, else the default one); failures become a note, never stop `add`."""
    from funes.index.indexer import index
    from funes.memory_spec import folder_memory

    try:
        report = index(
            harness=harness,
            budget_s=budget_s,
            progress=progress,
            memory_path=folder_memory(memory),
        )
    except Exception as error:  # the install is still worth doing; hooks backfill later
        return None, f"indexing the existing history failed ({error}); run `funes index` later"
    summary = report.as_dict()
    left = summary.get("backlog") or 0
    note = f"{left} older transcript(s) left for later hooks to backfill" if left else ""
    return summary, note


def _publish(memory: str) -> str:
    """Start publishing the local memory to a bound Hub memory; a note for any other binding."""
    from funes.memory_spec import is_remote_spec

    if not is_remote_spec(memory):
        return f"the agent's recall reads {memory}, and its turns are indexed into it"
    try:
        from funes.sync.push import publish_in_background
    except ImportError:
        return f"bound to {memory}; publishing is not available in this build (`funes push`)"
    if problem := _cannot_publish(memory):
        return f"bound to {memory}; not published yet: {problem}"
    publish_in_background(memory)
    return (
        f"bound to {memory}; publishing the local memory there in the background "
        "(how it went: $FUNES_HOME/logs/push.log; `funes push` runs it in the foreground)"
    )


def _cannot_publish(memory: str) -> str:
    """Why a background push to `memory` would fail at once ("" when it may go ahead): no
    token, a rejected one, an unreachable Hub, a dataset that does not exist yet. Checked
    here, in one request, because the background push only writes its failure to a log."""
    from funes.memory_spec import parse_remote_spec
    from funes.sync.hub import HubError, HubRemote, RepoMissing

    remote = HubRemote(parse_remote_spec(memory))
    try:
        remote.require_token()
        remote.info()
    except RepoMissing:
        return (
            f"{memory} doesn't exist on the Hub — `funes push {memory} --yes` creates it "
            "(private) and publishes"
        )
    except HubError as error:
        return str(error)
    if _token_role(remote) == "read":
        return "your Hugging Face token is read-only — publishing needs one with write access"
    return ""


def _token_role(remote: Any) -> str:
    """The token's role as the Hub reports it (`read`, `write`, `fineGrained`; "" unknown)."""
    try:
        return str(remote.api.whoami()["auth"]["accessToken"]["role"])
    except Exception:  # an older Hub answer, or none: let the push itself find out
        return ""


def remove_agent(agent: str) -> dict[str, Any]:
    """`funes remove`: undo what `add_agent` did for `agent`; the memory is kept."""
    from funes.installers import installer_for
    from funes.installers.base import InstallReport
    from funes.installers.retention import restore_transcripts

    ensure_writable_home()  # agents.json is updated last: fail before the agent's config changes
    # The retention first: the uninstall then finds the settings as they were before `add`.
    restored = InstallReport(agent)
    restore_transcripts(agent, restored)
    report = installer_for(agent).uninstall()
    report.changed = list(dict.fromkeys([*restored.changed, *report.changed]))
    report.notes = [*restored.notes, *report.notes]
    record_remove(agent)
    return {"agent": agent, "changed": [str(p) for p in report.changed], "notes": report.notes}

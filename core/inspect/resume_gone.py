"""Continuing a session whose transcript its agent no longer has, from what funes kept.

Claude Code deletes transcripts after `cleanupPeriodDays`, Gemini CLI after its
`sessionRetention`, Hermes prunes old sessions out of its database; a memory shared from another
machine holds sessions whose transcripts were never here. No agent can reopen those by id, but
the memory still holds every indexed turn: the agent starts afresh in the recorded folder with
the session's catch-up (`funes catchup`: its asks, conclusions, errors, files and `funes get`
lines) as its first prompt.

Each cause is said as what funes knows: a transcript this machine's index read is "deleted"; one
it never read, in a memory from elsewhere, "recorded on another machine"; otherwise both are
named as possible.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from funes.memory_spec import folder_memory, is_remote_spec
from funes.traces.retention import DAY_S, retention_of

if TYPE_CHECKING:
    from funes.inspect.sessions import SessionSummary

# The agents' own names, as said to people.
AGENT_NAMES = {
    "claude_code": "Claude Code",
    "codex": "Codex",
    "pi": "pi",
    "hermes": "Hermes",
    "gemini": "Gemini CLI",
    "qwen": "Qwen Code",
    "copilot": "Copilot CLI",
    "opencode": "opencode",
}


def local_path(recorded: str) -> Path:
    """A recorded path as this machine reads it: `~` (the home rewrite, or an agent that
    records it so) is the home folder."""
    return Path(recorded).expanduser() if recorded.startswith("~") else Path(recorded)


def transcript_gone(summary: SessionSummary, memory: str | None) -> str:
    """Why the session's agent cannot reopen it here ("" when its transcript is here): the
    cause funes knows, in one clause."""
    source = summary.source_path
    if not source:
        return ""
    path = local_path(source)
    agent = AGENT_NAMES.get(summary.harness, summary.harness or "its agent")
    if path.suffix == ".db" and path.exists():
        # One database holds many sessions (Hermes): the session may have left it alone.
        if _database_holds(path, summary.session_id) is not False:
            return ""
        return f"{agent} no longer holds it in {source} (pruned or deleted){_rule(summary)}"
    if path.exists():
        return ""
    if _indexed_here(path, memory):
        return f"{agent}'s own transcript {source} was deleted{_rule(summary)}"
    if memory and is_remote_spec(memory):
        return f"its transcript {source} was recorded on another machine (memory {memory})"
    return f"its transcript {source} is not on this machine (deleted, or recorded on another one)"


def _rule(summary: SessionSummary) -> str:
    """The agent's retention, when it explains the deletion (the session is older than it)."""
    rule = retention_of(summary.harness)
    if rule is None or rule.days is None or not summary.end:
        return ""
    from datetime import datetime

    try:
        ended = datetime.fromisoformat(summary.end.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return ""
    if time.time() - ended < rule.days * DAY_S:
        return ""
    return f": {rule.describe()}"


def _indexed_here(path: Path, memory: str | None) -> bool:
    """Whether this machine's index read `path` into the default memory or the folder memory
    named (each state keeps every unit it read)."""
    from funes.index.state import IndexState, state_path

    folder = folder_memory(memory)
    states = [state_path(), *([state_path(folder)] if folder else [])]
    return any(str(path) in IndexState.load(state).units for state in states)


def _database_holds(database: Path, session_id: str) -> bool | None:
    """Whether a Hermes-style `sessions` table holds `session_id` (None: cannot tell)."""
    import sqlite3

    from funes.traces.sqlite import query_readonly

    try:
        return bool(query_readonly(database, "SELECT 1 FROM sessions WHERE id = ?", (session_id,)))
    except sqlite3.Error:
        return None


def continue_argv(harness: str, text: str, prompt: str | None = None) -> list[str]:
    """The agent started afresh with `text` as its first prompt (with `prompt`: `text`, then
    `prompt`, in its non-interactive form). Empty for an agent without such a form. `text`
    begins with a word, never `-` or `@`, so no agent reads it as an option or a file."""
    if prompt is not None:
        text = f"{text}\n\n{prompt}"
        forms = {
            "claude_code": ["claude", "-p", text],
            "codex": ["codex", "exec", "--skip-git-repo-check", text],
            "pi": ["pi", "-p", text],
            "hermes": ["hermes", "chat", "-Q", "-q", text],
            "gemini": ["gemini", "-p", text],
            "qwen": ["qwen", "-p", text],
            "copilot": ["copilot", "-p", text],
            "opencode": ["opencode", "run", text],
        }
    else:
        forms = {
            "claude_code": ["claude", text],
            "codex": ["codex", text],
            "pi": ["pi", text],
            # Hermes takes a first message only as a single query; `hermes chat --continue`
            # then opens the new session.
            "hermes": ["hermes", "chat", "-q", text],
            "gemini": ["gemini", "-i", text],
            "qwen": ["qwen", "-i", text],
            "copilot": ["copilot", "-i", text],
            "opencode": ["opencode", "--prompt", text],
        }
    return forms.get(harness, [])


def catchup_prompt(session_id: str, memory: str | None, cause: str) -> str:
    """The first prompt of the continued session: what happened to the transcript, then the
    session's catch-up from the memory."""
    from funes.retrieve.catchup import build_catchup, format_catchup

    digest = format_catchup(build_catchup(session_id, memory))
    return (
        f"Continue session {session_id}. {cause[0].upper()}{cause[1:]}; funes kept it in its "
        "memory, and below is its catch-up from there (the lines after │ are quoted from the "
        "session; run a `funes get` line to read a turn whole, `funes recall` to search the "
        f"rest). Pick up where it stopped.\n\n{digest}"
    )

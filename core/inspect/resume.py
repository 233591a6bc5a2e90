"""Picking a past session up again: the command that reopens it in the agent that wrote it.

Each agent resumes its own sessions by id (Claude Code, Codex, Hermes) or by transcript file
(pi), from the session's working directory: Claude Code keeps a session under a folder named
for its working directory, and every agent's tools act on the files there. Sessions the memory
holds but no agent can reopen (imported Parquet rows, a transcript that is not on this machine)
get the command they would need and the reason it cannot run here.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# What to do for an agent that cannot reopen a session by its id.
BY_HAND = {
    "gemini": "Gemini CLI reopens a session only by its place in its own list: run "
    "`gemini --list-sessions` in the session's folder, then `gemini --resume N`",
}


@dataclass(slots=True)
class ResumePlan:
    session_id: str
    harness: str
    workdir: str  # the recorded working directory ("" when none was recorded)
    argv: list[str]  # the agent's command line
    # Why it cannot run here as planned (empty: it can). One line each, said to the user.
    problems: list[str] = field(default_factory=list)
    workdir_gone: bool = False  # one of the problems: the recorded working directory is gone
    notes: list[str] = field(default_factory=list)  # said to the user; the plan still runs

    @property
    def runnable(self) -> bool:
        return not self.problems

    def command_line(self) -> str:
        """The command as a shell line, from the working directory."""
        line = shlex.join(self.argv)
        return f"cd {shlex.quote(self.workdir)} && {line}" if self.workdir else line

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "command": self.command_line(), "runnable": self.runnable}


def agent_argv(
    harness: str, session_id: str, source_path: str = "", prompt: str | None = None
) -> list[str]:
    """The command line that reopens a session in its agent; with `prompt`, the agent's
    non-interactive form that sends it one more message and prints the answer. Empty for an
    agent that cannot reopen a session by its id (Gemini CLI resumes by list index only)."""
    if harness == "codex":
        if prompt is None:
            return ["codex", "resume", session_id]
        return ["codex", "exec", "resume", "--skip-git-repo-check", session_id, prompt]
    if harness == "opencode":  # stored without opencode's `ses_` prefix
        opened = ["--session", f"ses_{session_id}"]
        return ["opencode", *opened] if prompt is None else ["opencode", "run", *opened, prompt]
    reopen = {
        "claude_code": ["claude", "--resume", session_id],
        "pi": ["pi", "--session", source_path or session_id],
        "hermes": ["hermes", "chat", "--resume", session_id],
        "qwen": ["qwen", "--resume", session_id],
        "copilot": ["copilot", "--resume", session_id],
    }.get(harness)
    if reopen is None:
        return []
    if prompt is None:
        return reopen
    return [*reopen, *(["-Q", "-q", prompt] if harness == "hermes" else ["-p", prompt])]


def plan_resume(
    session: str,
    memory: str | None = None,
    *,
    here: str | None = None,
    prompt: str | None = None,
) -> ResumePlan:
    """How to reopen `session` (an id or a unique prefix) of `memory`. `here`: run from this
    folder instead of the recorded one (which may be gone). Raises TurnNotFound for an unknown
    session and MemoryNotFound when there is no memory."""
    from funes.inspect.sessions import summarize_session

    summary = summarize_session(session, memory)
    harness = summary.harness
    session_id, notes = summary.session_id, []
    if harness == "claude_code" and session_id.startswith("agent-"):
        # A subagent's transcript is not a conversation Claude Code can reopen: its parent is.
        session_id = _parent_session(session_id, memory) or session_id
        notes.append(f"{summary.session_id} is a subagent's session: resuming its parent")
    argv = agent_argv(harness, session_id, summary.source_path, prompt)
    plan = ResumePlan(session_id, harness, here or summary.workdir, argv, notes=notes)
    handle = summary.handle or summary.session_id
    if not argv:
        how = BY_HAND.get(harness, "no agent can reopen it")
        plan.problems.append(
            f"session {handle} came from {harness or 'an unknown source'}: {how} — "
            f"`funes catchup {handle}` prints a digest to paste into a new session"
        )
        return plan
    program = argv[0]
    if shutil.which(program) is None:
        plan.problems.append(f"{program} is not on PATH: install {program}, then run the command")
    if summary.source_path and not Path(summary.source_path).exists():
        plan.problems.append(
            f"its transcript {summary.source_path} is not on this machine (a shared memory "
            f"holds it): {program} can reopen only its own sessions"
        )
    if harness == "claude_code" and here and here != summary.workdir:
        plan.problems.append(
            f"Claude Code finds a session only from the folder it ran in ({summary.workdir}): "
            f"recreate that folder (`mkdir -p {shlex.quote(summary.workdir)}`) and resume there"
        )
    if plan.workdir and not here and not Path(plan.workdir).is_dir():
        plan.workdir_gone = True
        plan.problems.append(
            f"its working directory {plan.workdir} no longer exists: recreate it, or run "
            "`funes resume --here` to reopen the session from the current directory"
        )
    return plan


def _parent_session(session_id: str, memory: str | None) -> str:
    """The session a Claude Code subagent ran in: its first turn's parent ("" if unknown)."""
    from funes.retrieve.filters import quote_sql
    from funes.sync.memory import open_memory

    rows = open_memory(memory).store.scan(
        ["seq", "parent_uuid"], where=f"session_id = {quote_sql(session_id)}"
    )
    first = min(rows.to_pylist(), key=lambda r: r["seq"], default=None)
    return str(first["parent_uuid"] or "") if first else ""


def run_resume(plan: ResumePlan) -> None:
    """Replace this process with the agent, in the session's working directory."""
    if plan.workdir:
        os.chdir(plan.workdir)
    os.execvp(plan.argv[0], plan.argv)

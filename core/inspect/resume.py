"""Picking a past session up again: the command that reopens it in the agent that wrote it.

Each agent resumes its own sessions by id (Claude Code, Codex, Hermes) or by transcript file
(pi), from the session's working directory: Claude Code keeps a session under a folder named
for its working directory, and every agent's tools act on the files there. A session whose
transcript its agent deleted (or that was recorded on another machine) is continued from the
memory instead: its agent starts in the recorded folder with the session's catch-up as its first
prompt (funes.inspect.resume_gone). Sessions no agent can take up (imported Parquet rows) get
the reason and what to do instead.

No session id, path or prompt reaches an agent's command line where it could be read as an
option: an id beginning with `-` is refused, a prompt beginning with `-` is passed after `--`
or as `--option=TEXT`.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from funes.inspect.resume_gone import (
    AGENT_NAMES,
    catchup_prompt,
    continue_argv,
    local_path,
    transcript_gone,
)

if TYPE_CHECKING:
    from funes.inspect.sessions import SessionSummary

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
    # Why the agent's own transcript is not here, when the plan continues the session from the
    # memory (its catch-up as the first prompt of a new session) instead of reopening it.
    from_memory: str = ""

    @property
    def runnable(self) -> bool:
        return not self.problems

    @property
    def here_helps(self) -> bool:
        """Whether running from another folder gets round the problems: only a gone folder,
        for an agent that does not look its sessions up by folder (Claude Code does)."""
        only_folder = self.workdir_gone and len(self.problems) == 1
        return only_folder and (self.harness != "claude_code" or bool(self.from_memory))

    def command_line(self) -> str:
        """The command as a shell line, from the working directory."""
        line = shlex.join(self.argv)
        return f"cd {shell_path(self.workdir)} && {line}" if self.workdir else line

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "command": self.command_line(), "runnable": self.runnable}


def shell_path(path: str) -> str:
    """`path` quoted for a shell, a leading `~` written `"$HOME"` (a quoted `~` is not
    expanded, so `cd '~/x'` fails)."""
    if path == "~":
        return '"$HOME"'
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


def unsafe_argument(value: str) -> bool:
    """A value an agent's option parser would read as an option (or, for pi, a file)."""
    return value.startswith(("-", "@"))


def agent_argv(
    harness: str, session_id: str, source_path: str = "", prompt: str | None = None
) -> list[str]:
    """The command line that reopens a session in its agent; with `prompt`, the agent's
    non-interactive form that sends it one more message and prints the answer. Empty for an
    agent that cannot reopen a session by its id (Gemini CLI resumes by list index only)."""
    # A prompt that looks like an option goes after `--` (positional prompts) or as
    # `--option=TEXT` (prompts that are an option's value).
    after = ["--", prompt] if prompt is not None and unsafe_argument(prompt) else [prompt or ""]
    if harness == "codex":
        if prompt is None:
            return ["codex", "resume", session_id]
        return ["codex", "exec", "resume", "--skip-git-repo-check", session_id, *after]
    if harness == "opencode":  # stored without opencode's `ses_` prefix
        opened = ["--session", f"ses_{session_id}"]
        return ["opencode", *opened] if prompt is None else ["opencode", "run", *opened, *after]
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
    if harness == "hermes":
        return [
            *reopen,
            "-Q",
            *([f"--query={prompt}"] if prompt.startswith("-") else ["-q", prompt]),
        ]
    if harness in ("qwen", "copilot") and unsafe_argument(prompt):
        return [*reopen, f"--prompt={prompt}"]
    return [*reopen, "-p", *after]  # claude and pi: `-p` prints, the prompt is positional


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
        summary = _summary_of(session_id, memory) or summary
    handle = summary.handle or summary.session_id
    gone = transcript_gone(summary, memory)
    if gone:
        return _continue_from_memory(summary, memory, gone, here, prompt, notes)
    source = str(local_path(summary.source_path)) if summary.source_path else ""
    argv = agent_argv(harness, session_id, source, prompt)
    plan = ResumePlan(session_id, harness, here or summary.workdir, argv, notes=notes)
    if session_id.startswith("-") or summary.source_path.startswith("-"):
        agent = AGENT_NAMES.get(harness, harness)
        plan.argv = []
        plan.problems.append(
            f"session {handle}: its id (or transcript path) begins with `-`, which {agent} "
            f"would read as an option: funes does not pass it — `funes catchup -- "
            f"{shlex.quote(handle)}` prints a digest to paste into a new session"
        )
        return plan
    if harness == "pi" and prompt is not None and unsafe_argument(prompt):
        plan.argv = []
        plan.problems.append(
            "pi reads a prompt beginning with `-` or `@` as an option or a file: begin it "
            "with another character"
        )
        return plan
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
    _check_folder(plan, summary.workdir, here)
    return plan


def _check_folder(plan: ResumePlan, recorded: str, here: str | None) -> None:
    """The problems of the folder the plan runs in. Claude Code finds a session only from the
    folder it ran in, so for its sessions `--here` is never offered: the folder is recreated."""
    recreate = f"`mkdir -p {shell_path(recorded)}`"
    reopening = plan.harness == "claude_code" and not plan.from_memory
    if reopening and here and local_path(here) != local_path(recorded):
        plan.problems.append(
            f"Claude Code finds a session only from the folder it ran in ({recorded}): "
            f"recreate that folder ({recreate}) and resume there"
        )
    if plan.workdir and not here and not local_path(plan.workdir).is_dir():
        plan.workdir_gone = True
        if reopening:
            plan.problems.append(
                f"its working directory {plan.workdir} no longer exists, and Claude Code finds "
                f"a session only from the folder it ran in: recreate it ({recreate}), then run "
                "the command again"
            )
        else:
            plan.problems.append(
                f"its working directory {plan.workdir} no longer exists: recreate it, or run "
                "`funes resume --here` to reopen the session from the current directory"
            )


def _continue_from_memory(
    summary: SessionSummary,
    memory: str | None,
    gone: str,
    here: str | None,
    prompt: str | None,
    notes: list[str],
) -> ResumePlan:
    """The plan for a session whose agent no longer has its transcript: the agent starts in the
    recorded folder with the session's catch-up as its first prompt."""
    text = catchup_prompt(summary.session_id, memory, gone)
    argv = continue_argv(summary.harness, text, prompt)
    plan = ResumePlan(
        summary.session_id, summary.harness, here or summary.workdir, argv, notes=notes
    )
    plan.from_memory = gone
    handle = summary.handle or summary.session_id
    if not argv:
        how = BY_HAND.get(summary.harness, "no agent can reopen it")
        plan.problems.append(
            f"session {handle} came from {summary.harness or 'an unknown source'}: {how} — "
            f"`funes catchup {handle}` prints a digest to paste into a new session"
        )
        return plan
    if summary.harness == "hermes" and prompt is None:
        plan.notes.append(
            "Hermes takes a first message only as a single query: `hermes chat --continue` "
            "then opens the new session"
        )
    if shutil.which(argv[0]) is None:
        plan.problems.append(f"{argv[0]} is not on PATH: install {argv[0]}, then run the command")
    _check_folder(plan, summary.workdir, here)
    return plan


def _summary_of(session_id: str, memory: str | None) -> SessionSummary | None:
    """The summary of a session the memory may not hold (None then)."""
    from funes.inspect.sessions import summarize_session
    from funes.retrieve.get import TurnNotFound

    try:
        return summarize_session(session_id, memory)
    except TurnNotFound:
        return None


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
        os.chdir(local_path(plan.workdir))
    os.execvp(plan.argv[0], plan.argv)

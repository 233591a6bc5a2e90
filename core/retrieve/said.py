"""What a stored turn's text is, beyond its role: a real request or harness noise, an
acknowledgement, a compaction summary, a plan.

The parsers keep what the agents wrote; these rules tell the words a person typed from what the
harness wrapped around them, so a session is titled by its first real request, a catch-up quotes
the asks that matter, and the page labels what it shows. One module, so the session list, the
picker, the page and `funes catchup` agree.
"""

from __future__ import annotations

import re

# Harness wrappers whose content is context, not the request: dropped with their content.
_CONTEXT_TAGS = (
    "ide_opened_file",
    "ide_selection",
    "ide_diagnostics",
    "local-command-stdout",
    "local-command-stderr",
    "bash-stdout",
    "bash-stderr",
    "system-reminder",
    "environment_context",
    "user_instructions",
    "command-message",
    "command-args",
    "command-name",
    "command-contents",
    "user-prompt-submit-hook",
)
_CONTEXT = re.compile(
    r"<(" + "|".join(re.escape(t) for t in _CONTEXT_TAGS) + r")>.*?(?:</\1>|$)", re.DOTALL
)
# Any other wrapper tag at the text's start (`<bash-input>`): the tag goes, the words stay.
# Only harness-style names (`bash-input`, `user_prompt`): `<script>` a person typed is text.
_EDGE_TAG = re.compile(r"</?[a-z]+[-_][\w-]*>")
# A slash command as the parsers store it (`/clear`, `/model opus`), not a pasted path (`/var/x`).
_SLASH = re.compile(r"^/[A-Za-z][\w:.-]*(?:\s|$)")
# Turns the harness writes in the user's name.
_HARNESS_PREFIXES = (
    "Caveat:",
    "[Request interrupted",
    "<bash-input>",
    "[image elided]",
    "[trimmed for fixture]",
)
INTERRUPTED = "[Request interrupted"
# A reply that carries nothing to catch up on: ok, yes, thanks, 👍 …
_ACK = re.compile(
    r"^(?:ok(?:ay)?|k|kk|yes|yep|yeah|ya|y|sure|thanks?(?: you)?|thx|ty|great|nice|cool|perfect|"
    r"good|lgtm|go|go ahead|go on|do it|continue|proceed|next|done|fine|alright|right|agreed|"
    r"sounds good|looks good|makes sense|got it|understood|noted)"
    r"(?:[\s,]+(?:ok|thanks|please|then|now))*[\s.!]*$",
    re.I,
)
# Claude Code writes a compaction summary as a user turn that starts so.
_CONTINUED = "This session is being continued from a previous conversation"
# A plan or todo step as funes.traces.text renders it: `[status] step`.
_LABEL = re.compile(r"^(?:\[tool_(?:use|result) [^\]]*\] ?)+")
_STEP = re.compile(r"^\[([\w -]+)\] (.+)$")
# Tools whose input is a plan or a todo list (Claude Code, Codex, opencode, Gemini, Qwen, pi).
PLAN_TOOL = re.compile(r"todo|update_plan|^plan$|write_plan", re.I)
DONE_STATUSES = frozenset({"completed", "complete", "done", "cancelled", "canceled", "skipped"})


# A reminder Claude Code appends to tool outputs (a malware warning after every file read, the
# todo list's state): the same paragraph hundreds of times in a session, never what was asked.
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|$)", re.DOTALL)
REMINDER_CUT = "[system reminder not shown]"


def cut_reminders(text: str) -> str:
    """`text` with each `<system-reminder>…</system-reminder>` as one short line."""
    return _REMINDER.sub(REMINDER_CUT, text) if "<system-reminder>" in text else text


def strip_wrappers(text: str) -> str:
    """`text` without the harness's context wrappers (`<ide_selection>…`, `<local-command-stdout>…`,
    `<command-name>…`) and without stray wrapper tags; surrounding whitespace trimmed."""
    if "<" not in text:
        return text.strip()
    text = _CONTEXT.sub("", text)
    return _EDGE_TAG.sub("", text).strip() if text.lstrip().startswith("<") else text.strip()


# What a harness wrapper holds, in words (how a page or a terminal names it).
CONTEXT_NAMES = {
    "ide_opened_file": "opened in the IDE",
    "ide_selection": "selected in the IDE",
    "ide_diagnostics": "IDE diagnostics",
    "local-command-stdout": "command output",
    "local-command-stderr": "command errors",
    "bash-stdout": "shell output",
    "bash-stderr": "shell errors",
    "system-reminder": "reminder from the harness",
    "command-name": "command",
    "command-args": "arguments",
    "command-message": "command",
}


def wrapped_context(text: str) -> list[tuple[str, str]]:
    """The harness wrappers in `text` as (tag, what it holds), in order: what a page shows as
    context, in words, instead of the tags."""
    return [
        (m.group(1), _EDGE_TAG.sub("", m.group(0)[len(m.group(1)) + 2 :]).strip())
        for m in _CONTEXT.finditer(text)
    ]


def is_slash_command(text: str) -> bool:
    return bool(_SLASH.match(text.strip()))


def is_acknowledgement(text: str) -> bool:
    """A reply with nothing to carry: `ok`, `yes, thanks`, `👍`, an emoji or punctuation alone."""
    words = text.strip()
    if not words:
        return True
    if not any(ch.isalnum() for ch in words):
        return len(words) <= 12  # 👍, ✅, "...", "!!"
    return len(words) <= 40 and bool(_ACK.match(words))


def is_harness_text(text: str) -> bool:
    """A user turn the harness wrote, not the person: a slash command, a caveat, an interruption
    marker, Claude Code's `Warmup` subagent probe, wrappers with nothing else."""
    stripped = text.strip()
    if not stripped or stripped == "Warmup" or is_slash_command(stripped):
        return True
    if stripped.startswith(_HARNESS_PREFIXES):
        return True
    return not strip_wrappers(stripped)


def request_text(text: str) -> str:
    """What the person asked in a user turn's text, on one line ("" when it is harness text or
    only an acknowledgement)."""
    if is_harness_text(text) or is_compaction(text, "user"):
        return ""
    words = " ".join(strip_wrappers(text).split())
    return "" if is_acknowledgement(words) else words


def is_compaction(text: str, role: str) -> bool:
    """A compaction summary: a system turn's text (pi, Codex, Copilot, Qwen, opencode store the
    summary so), or Claude Code's `This session is being continued…` user turn."""
    if role == "system":
        return bool(text.strip())
    return role == "user" and text.lstrip().startswith(_CONTINUED)


def plan_steps(text: str) -> list[tuple[str, str]]:
    """The `(status, step)` pairs of a plan or todo tool call's text (its `[tool_use …]` label
    and any explanation lines are skipped); empty when it holds none."""
    steps = []
    for line in text.splitlines():
        line = _LABEL.sub("", line.strip())
        match = _STEP.match(line)
        if match:
            steps.append((match.group(1).strip().lower().replace(" ", "_"), match.group(2)))
    return steps


def unfinished(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(status, step) for status, step in steps if status not in DONE_STATUSES]

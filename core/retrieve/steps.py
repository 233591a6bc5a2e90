"""One step of a session in one line: a tool call by its key argument, a tool output by its
outcome, something said by its first words. The recall page (a call's outcome, an output's
call) and the timeline (a session's course) read steps this way.
"""

from __future__ import annotations

import re

from funes.retrieve.budget import clip_words

# The label the indexer puts in front of a tool block's text (`[tool_result Bash] `).
TOOL_LABEL = re.compile(r"^\[tool_(?:use|result)[^\]]*\] ?")
# An output line that says the call failed (not code that merely names an error, `except
# ValueError:`): a traceback, `SomeError: …`, `error: …` (not `error: null`), a failed test, a
# missing command, a non-zero exit. The catch-up reads errors with it too.
_NOT_EMPTY = r"(?!\s*(?:null|none|false|0|\"\")?\s*,?\s*$)"
ERROR_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|(?:[\w.]*(?:Error|Exception)|error)(?:\[\w+\])?:"
    + _NOT_EMPTY
    + r"|FAILED\b|npm ERR!|fatal:|<tool_use_error>)|command not found|exit (?:code|status):? [1-9]|"
    r"No such file or directory|Permission denied",
    re.I,
)
# Tools whose output is content (a file, a search): an `Error` in it is text, not a failure.
CONTENT_TOOLS = re.compile(r"read|grep|glob|view|search|find|fetch|^ls$|list", re.I)
# The argument that names what a call did, in order of preference.
KEY_ARGUMENTS = (
    "command",
    "cmd",
    "file_path",
    "notebook_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
    "prompt",
)
_KEY_VALUE = re.compile(r"^([A-Za-z_-]+):\s?(.*)$")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
_PLAN_STEP = re.compile(r"^\[(in_progress|pending|completed)\] (.+)$", re.M)
# The tools that write files.
WRITE_TOOLS = frozenset(
    {"write", "edit", "multiedit", "notebookedit", "apply_patch", "write_file", "edit_file"}
)
# An output this short from a write tool is its acknowledgement ("File created successfully at:
# …", "Successfully replaced text in …"), not a diff or a file excerpt: what was written is in
# the call, and the outcome is just `ok`.
ACK_CHARS = 200
# A line of file content as Claude Code's Read shows it (`    55→…`).
NUMBERED = re.compile(r"^\s*\d+→")


def unlabelled(text: str) -> str:
    """A block's text without its `[tool_use NAME] ` / `[tool_result NAME] ` label."""
    return TOOL_LABEL.sub("", text, count=1)


def call_line(tool_name: str | None, text: str, limit: int = 120) -> str:
    """A tool call as `Tool: key argument` (the command, the file, the pattern, ...)."""
    body = unlabelled(text)
    return f"{tool_name or 'tool'}: {clip_words(' '.join(key_argument(body).split()), limit)}"


def key_argument(body: str) -> str:
    """The argument that names what a call did: a command, a path, a patched file, the step in
    progress of a plan; else its first line."""
    files = _PATCH_FILE.findall(body)
    if files:
        return ", ".join(files)
    steps = _PLAN_STEP.findall(body)
    if steps:
        doing = [step for status, step in steps if status == "in_progress"]
        done = sum(1 for status, _ in steps if status == "completed")
        return f"{done}/{len(steps)} done; now: {doing[0] if doing else steps[-1][1]}"
    values: dict[str, str] = {}
    for line in body.splitlines():
        match = _KEY_VALUE.match(line)
        if match and match.group(1) not in values:
            values[match.group(1)] = match.group(2)
    for key in KEY_ARGUMENTS:
        if values.get(key, "").strip():
            return values[key]
    first = next((line for line in body.splitlines() if line.strip()), "")
    return first


def error_line(tool_name: str | None, text: str) -> str:
    """The first line of a tool output that says the call failed ("" when none does)."""
    body = unlabelled(text)
    lines = body.splitlines()
    if tool_name and CONTENT_TOOLS.search(tool_name):
        # A file's content may say anything: only its first line can report a failure.
        lines = lines[:1]
    for line in lines:
        if NUMBERED.match(line):
            continue
        if ERROR_LINE.search(line):
            return line.strip()
    return ""


def outcome(tool_name: str | None, text: str, limit: int = 120) -> str:
    """A tool output in one line: `error: <its error line>`, else `ok` and its first line."""
    failed = error_line(tool_name, text)
    if failed:
        return "error: " + clip_words(" ".join(failed.split()), limit)
    if is_write(tool_name):
        # What a write tool says when it worked is that it worked ("The file … has been
        # updated", "Successfully replaced text in …"); what it wrote is in its call.
        return "ok"
    body = unlabelled(text)
    first = next((line for line in body.splitlines() if line.strip()), "")
    first = NUMBERED.sub("", first)
    lines = body.count("\n") + 1
    size = f" ({lines} lines)" if lines > 3 else ""
    # A good outcome's first line is a hint, not the point: half the room an error gets.
    said = ": " + clip_words(" ".join(first.split()), limit // 2) if first else ""
    return "ok" + size + said


# The keys a write tool's call names the text it replaced and the text it wrote by, in each
# harness (Claude Code, pi, opencode, ...; a MultiEdit lists such pairs); the others it may
# hold. A line `key:` opens that key's text, which runs until the next known key.
_OLD_KEYS = frozenset({"old_string", "oldText", "oldString", "old_str"})
_NEW_KEYS = frozenset({"new_string", "newText", "newString", "new_str", "content"})
_OTHER_KEYS = frozenset(
    {"path", "file_path", "filePath", "notebook_path", "edits", "replace_all", "cell_id"}
)
_EDIT_KEY = re.compile(r"^\s*(?:- )?(\w+):(?: (.*))?$")


def first_change(body: str, limit: int = 80) -> str:
    """What a write tool's call did, in one line: the first line it added (`+ line`), else
    the first it removed (`- line`); "" when neither can be told. A patch (`*** Update File:`)
    reads by its `+`/`-` lines."""
    old: list[str] = []
    new: list[str] = []
    if _PATCH_FILE.search(body):
        for line in body.splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                new.append(line[1:])
            elif line.startswith("-") and not line.startswith("---"):
                old.append(line[1:])
    else:
        section: list[str] | None = None
        for line in body.splitlines():
            match = _EDIT_KEY.match(line)
            key = match.group(1) if match else ""
            if key in _OLD_KEYS or key in _NEW_KEYS or key in _OTHER_KEYS:
                section = old if key in _OLD_KEYS else new if key in _NEW_KEYS else None
                line = (match.group(2) or "") if match else ""
            if section is not None:
                section.append(line)
    old = [" ".join(line.split()) for line in old]
    new = [" ".join(line.split()) for line in new]
    old_set, new_set = set(old), set(new)
    added = [line for line in new if line and line not in old_set]
    removed = [line for line in old if line and line not in new_set]
    if added:
        return "+ " + clip_words(added[0], limit)
    if removed:
        return "- " + clip_words(removed[0], limit)
    return ""


# Tools that read one file: their call is a path, their output the file.
FILE_READ_TOOLS = frozenset({"read", "read_file", "view", "notebookread", "readfile"})


def is_file_read(tool_name: str | None) -> bool:
    """Whether `tool_name` reads a file (its call says only which: the output holds it)."""
    return (tool_name or "").lower() in FILE_READ_TOOLS


def is_write(tool_name: str | None) -> bool:
    """Whether `tool_name` writes files (its call holds what it wrote)."""
    return (tool_name or "").lower() in WRITE_TOOLS


def is_ack(tool_name: str | None, text: str) -> bool:
    """Whether `text`, a write tool's output, is only its acknowledgement (ACK_CHARS)."""
    return is_write(tool_name) and len(unlabelled(text)) <= ACK_CHARS


# A reply's opening cheer ("Perfect! I've updated…"): the words after it carry the point.
_CHEER = re.compile(
    r"^(?:(?:perfect|great|excellent|done|good|nice|awesome|okay|ok|alright|sure|got it|"
    r"understood|you're right|good catch|good point)[!.,:]+\s+)+",
    re.I,
)


def said_line(text: str, limit: int = 120) -> str:
    """Something said, as its first words on one line (an opening cheer left out)."""
    words = " ".join(text.split())
    return clip_words(_CHEER.sub("", words) or words, limit)

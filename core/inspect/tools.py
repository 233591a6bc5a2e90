"""How a tool call or its output reads, per tool: an edit as a diff, a file read without its
line-number arrows, a plan as a checklist. Used by the page (render.py) and `funes show`.

The stored text of a tool call is its input rendered as `key: value` lines
(funes.traces.text.render_tool_input): a multi-line value sits under its `key:` line, a list
item starts `- ` and continues indented two spaces. These functions read that shape back; when
a block does not have it they return None and the caller shows the text as it is.
"""

from __future__ import annotations

import difflib
import re

from funes.retrieve.said import PLAN_TOOL, plan_steps
from funes.retrieve.subagents import SUBAGENT_TOOLS

# Claude Code's Read output (`   12→text`), Gemini's and others' `12→`.
_NUMBERED = re.compile(r"^ *\d+→", re.M)
EDIT_TOOLS = {"edit", "multiedit", "str_replace", "str_replace_editor", "replace", "edit_file"}
PATCH_TOOLS = {"apply_patch"}
READ_TOOLS = {"read", "read_file", "view", "readfile"}
_KEYS = ("file_path", "path", "old_string", "new_string", "replace_all", "edits", "old_str")
_KEY_LINE = re.compile(
    r"^(file_path|path|old_string|new_string|old_str|new_str|replace_all):(?: (.*))?$"
)


def is_edit(tool_name: str | None) -> bool:
    return (tool_name or "").lower() in EDIT_TOOLS


def is_patch(tool_name: str | None, text: str) -> bool:
    return (tool_name or "").lower() in PATCH_TOOLS or "*** Begin Patch" in text[:400]


def is_read(tool_name: str | None) -> bool:
    return (tool_name or "").lower() in READ_TOOLS


def is_plan(tool_name: str | None) -> bool:
    return bool(PLAN_TOOL.search(tool_name or ""))


def is_subagent_call(tool_name: str | None) -> bool:
    return (tool_name or "") in SUBAGENT_TOOLS


def without_line_numbers(text: str) -> str:
    """A Read tool's output without the `   12→` prefix on each line."""
    return _NUMBERED.sub("", text)


def checklist(text: str) -> list[tuple[str, str]]:
    """The `(status, step)` pairs of a plan or todo call (empty when it holds none)."""
    return plan_steps(text)


def edit_diff(text: str) -> tuple[str, list[str]] | None:
    """(the file, unified-diff lines) of an Edit/MultiEdit call's text, or None when the text
    does not read as one. Each edit becomes its own hunk."""
    fields = _fields(text.splitlines())
    path = fields.get("file_path") or fields.get("path") or ""
    edits: list[tuple[str, str]] = []
    if "old_string" in fields or "old_str" in fields:
        old = fields.get("old_string", fields.get("old_str", ""))
        new = fields.get("new_string", fields.get("new_str", ""))
        edits.append((old, new))
    elif "edits" in text:
        for item in _list_items(text):
            sub = _fields(item.splitlines())
            if "old_string" in sub:
                edits.append((sub["old_string"], sub.get("new_string", "")))
    if not edits:
        return None
    lines: list[str] = []
    for old, new in edits:
        diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))[
            2:
        ]  # no `---`/`+++` header: the file is named once
        lines += diff or [f" {line}" for line in new.splitlines()]
    return path, lines


def _fields(lines: list[str]) -> dict[str, str]:
    """`key: value` and `key:` + following lines, for the keys an edit has."""
    found: dict[str, str] = {}
    key = ""
    body: list[str] = []
    for line in lines:
        match = _KEY_LINE.match(line)
        if match:
            if key:
                found[key] = "\n".join(body)
            key, body = match.group(1), []
            if match.group(2) is not None:
                found[key] = match.group(2)
                key = ""
            continue
        if line.startswith("edits:"):
            if key:
                found[key] = "\n".join(body)
            key = ""
            break
        if key:
            body.append(line)
    if key:
        found[key] = "\n".join(body)
    return found


def _list_items(text: str) -> list[str]:
    """The items of the `edits:` list, each de-indented."""
    after = text.split("\nedits:\n", 1)
    if len(after) < 2:
        return []
    items: list[list[str]] = []
    for line in after[1].splitlines():
        if line.startswith("- "):
            items.append([line[2:]])
        elif items and (line.startswith("  ") or not line):
            items[-1].append(line[2:])
        elif items:
            break
    return ["\n".join(item) for item in items]


_BRIEF_KEYS = ("description", "command", "cmd", "file_path", "path", "pattern", "query", "url")
_BRIEF_LINE = re.compile(r"^(" + "|".join(_BRIEF_KEYS) + r"):[ \n](.*)$", re.M)


def brief(tool_name: str | None, text: str) -> str:
    """One line that says what a tool call did: a Task's description, a command, the file an
    edit or a read touched, else the input's first line."""
    found = {m.group(1): m.group(2).strip() for m in _BRIEF_LINE.finditer(text[:4000])}
    for key in _BRIEF_KEYS:
        if found.get(key):
            return found[key]
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.strip()

"""Edit one top-level member of a JSON object in place, leaving every other byte of the text as
it was: the user's layout, key order, escapes and spacing survive, and an edit undone gives the
file back byte for byte."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Member:
    key: str
    start: int  # where its key's opening quote is
    value_start: int
    value_end: int
    # Where removing it starts and ends (a comma and the spacing that belong with it).
    cut_start: int
    cut_end: int


def top_level_members(text: str) -> list[Member]:
    """The members of the object `text` holds (ValueError when it is not one JSON object)."""
    json.loads(text)  # raises on anything that is not JSON; below, only objects are walked
    decoder = json.JSONDecoder()
    i = _skip(text, 0)
    if i >= len(text) or text[i] != "{":
        raise ValueError("not a JSON object")
    found: list[tuple[str, int, int, int, int]] = []  # key, after prev, start, v0, v1
    after_prev = i + 1
    i = _skip(text, i + 1)
    if text[i] == "}":
        return []
    while True:
        key, key_end = decoder.raw_decode(text, i)
        colon = _skip(text, key_end)
        value_start = _skip(text, colon + 1)
        _, value_end = decoder.raw_decode(text, value_start)
        found.append((str(key), after_prev, i, value_start, value_end))
        j = _skip(text, value_end)
        if text[j] == "}":
            break
        after_prev = j + 1  # past the comma
        i = _skip(text, j + 1)
    members: list[Member] = []
    for n, (key, lead, start, v0, v1) in enumerate(found):
        if n + 1 < len(found):  # up to the next member's own spacing: " key: v,"
            cut_start, cut_end = lead, found[n + 1][1]
        elif n > 0:  # the last one: from the comma before it
            cut_start, cut_end = found[n][1] - 1, v1
        else:  # the only one
            cut_start, cut_end = lead, v1
        members.append(Member(key, start, v0, v1, cut_start, cut_end))
    return members


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def find_member(text: str, key: str) -> Member | None:
    return next((m for m in top_level_members(text) if m.key == key), None)


def set_member(text: str, key: str, literal: str) -> str:
    """`text` with the top-level `key` set to the JSON `literal`: its value replaced where it
    is, or a new first member laid out as the one after it."""
    if not text.strip():
        return "{\n  " + json.dumps(key) + ": " + literal + "\n}\n"
    member = find_member(text, key)
    if member is not None:
        return text[: member.value_start] + literal + text[member.value_end :]
    brace = text.index("{")
    first = _skip(text, brace + 1)
    spacing = text[brace + 1 : first]
    entry = json.dumps(key) + ": " + literal
    if text[first] == "}":  # an empty object
        return text[: brace + 1] + entry + text[brace + 1 :]
    return text[: brace + 1] + (spacing or " ") + entry + "," + text[brace + 1 :]


def remove_member(text: str, key: str) -> str:
    member = find_member(text, key)
    if member is None:
        return text
    return text[: member.cut_start] + text[member.cut_end :]


def find_path(text: str, path: list[str]) -> tuple[int, int] | None:
    """The span of the value at `path` (keys of nested objects), or None when one is missing."""
    offset, member = 0, None
    for key in path:
        try:
            member = find_member(text, key)
        except ValueError:  # an intermediate value that is not an object
            return None
        if member is None:
            return None
        offset += member.value_start
        text = text[member.value_start : member.value_end]
    return (offset, offset + len(text)) if member is not None else None


def set_path(text: str, path: list[str], literal: str) -> tuple[str, int]:
    """`text` with the value at `path`, absent from it, set to the JSON `literal` (objects
    created on the way), and the depth in `path` of the member it added: what `remove_path`
    takes out again."""
    member = find_member(text, path[0]) if text.strip() else None
    if member is None or len(path) == 1:
        return set_member(text, path[0], _nested(path[1:], literal)), 0
    inner = text[member.value_start : member.value_end]
    changed, depth = set_path(inner, path[1:], literal)
    return text[: member.value_start] + changed + text[member.value_end :], depth + 1


def _nested(path: list[str], literal: str) -> str:
    for key in reversed(path):
        literal = "{" + json.dumps(key) + ": " + literal + "}"
    return literal


def remove_path(text: str, path: list[str]) -> str:
    """`text` without the member at `path` (as it was before `set_path` added it there)."""
    if len(path) == 1:
        return remove_member(text, path[0])
    member = find_member(text, path[0])
    if member is None:
        return text
    inner = text[member.value_start : member.value_end]
    return text[: member.value_start] + remove_path(inner, path[1:]) + text[member.value_end :]

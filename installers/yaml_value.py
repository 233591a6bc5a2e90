"""Edit one `key: value` line inside a top-level mapping of a YAML file, leaving every other byte
as it was (comments, quoting, order): a value set and set back gives the file back byte for
byte. Only the plain block layout agents write (`parent:` then indented `key: value` lines)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Line:
    start: int  # the line's first character
    end: int  # past its newline
    value_start: int
    value_end: int


def _block(text: str, parent: str) -> tuple[int, list[tuple[int, str]]] | None:
    """(where the line after `parent:` starts, [(offset, line)] of its indented block)."""
    offset, head, block = 0, None, []
    for line in text.splitlines(keepends=True):
        if head is None:
            if re.match(rf"^{re.escape(parent)}:\s*(#.*)?$", line.rstrip("\r\n")):
                head = offset + len(line)
        elif not line.strip() or line.lstrip().startswith("#") or line[0] in " \t":
            block.append((offset, line))
        else:
            break
        offset += len(line)
    return (head, block) if head is not None else None


def find_child(text: str, parent: str, key: str) -> Line | None:
    found = _block(text, parent)
    if found is None:
        return None
    for offset, line in found[1]:
        match = re.match(rf"^([ \t]+){re.escape(key)}:[ \t]*", line)
        if match:
            body = line.rstrip("\r\n")
            value = re.sub(r"[ \t]+#.*$", "", body[match.end() :]).rstrip()
            start = offset + match.end()
            return Line(offset, offset + len(line), start, start + len(value))
    return None


def set_child(text: str, parent: str, key: str, literal: str) -> str:
    """`text` with `parent.key` set to `literal`: in place, or a new first line of the block
    (with its indentation; a new `parent:` block at the end when there is none)."""
    line = find_child(text, parent, key)
    if line is not None:
        return text[: line.value_start] + literal + text[line.value_end :]
    found = _block(text, parent)
    if found is None:
        lead = "" if not text or text.endswith("\n") else "\n"
        return f"{text}{lead}{parent}:\n  {key}: {literal}\n"
    head, block = found
    indents = [re.match(r"^[ \t]+", ln) for _, ln in block if ln.strip()]
    indent = next((m.group(0) for m in indents if m), "  ")
    return text[:head] + f"{indent}{key}: {literal}\n" + text[head:]


def remove_child(text: str, parent: str, key: str) -> str:
    line = find_child(text, parent, key)
    return text if line is None else text[: line.start] + text[line.end :]

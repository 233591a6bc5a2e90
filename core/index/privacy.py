"""`<private>…</private>`: text a user marks in a prompt is never stored, nor embedded.

The span (tags included) becomes `[PRIVATE]`; the rest of the block is kept. Tags match in any
case; an opening tag never closed hides everything after it (a forgotten `</private>` must not
leak the secret it was meant to guard). Applied to every block of a turn, not only the user's:
an agent that echoes the tagged text back with its tags is hidden too. Text repeated without the
tags cannot be recognised (SECURITY.md says so).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from funes.model import Turn

PRIVATE = "[PRIVATE]"
_SPAN = re.compile(r"<private\s*>.*?(?:</private\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_OPEN = "<private"


def strip_private(text: str) -> str:
    """`text` with each private span replaced by `[PRIVATE]`."""
    if _OPEN not in text.lower():  # the common case: no regex pass at all
        return text
    return _SPAN.sub(PRIVATE, text)


def strip_private_turns(turns: Iterable[Turn]) -> int:
    """Strip private spans from every block of `turns`, in place; return how many blocks changed."""
    changed = 0
    for turn in turns:
        for block in turn.blocks:
            cleaned = strip_private(block.text)
            if cleaned != block.text:
                block.text = cleaned
                changed += 1
    return changed

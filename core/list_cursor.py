"""The cursor of a list in the terminal (the sessions picker, curate's review): where keys move
it, which rows are shown so that it stays on screen, and the arrow keys curses left untranslated."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import curses


def moved(cursor: int, rows: int, key: str, page: int) -> int | None:
    """Where the cursor of a list of `rows` rows goes on `key` (up, down, pgup, pgdn: `page`
    rows, home, end), kept inside the list; None when `key` does not move it."""
    last = max(rows - 1, 0)
    steps = {"up": -1, "down": 1, "pgup": -page, "pgdn": page}
    if key in steps:
        return max(0, min(last, cursor + steps[key]))
    if key == "home":
        return 0
    if key == "end":
        return last
    return None


def scrolled(top: int, cursor: int, shown: int) -> int:
    """The first row on screen, moved as little as keeps the cursor among the `shown` rows."""
    if cursor < top:
        return cursor
    if cursor >= top + shown:
        return cursor - shown + 1
    return top


def escape_sequence(screen: curses.window, arrows: dict[str, str]) -> str | None:
    """After an ESC: the key an arrow sent as `ESC [ B` or `ESC O B` names in `arrows` (by its
    last letter), when curses did not translate it (a terminal left in the other cursor-key
    mode); None for a lone ESC or a sequence `arrows` does not name."""
    screen.nodelay(True)
    try:
        first, second = screen.getch(), screen.getch()
    finally:
        screen.nodelay(False)
    if first in (ord("["), ord("O")) and 0 <= second < 256:
        return arrows.get(chr(second))
    return None

"""The cursor the sessions picker and curate's review share: the keys that move it through a list
stay inside it, and the rows on screen follow it."""

from __future__ import annotations

from funes.list_cursor import moved, scrolled


def test_keys_move_the_cursor_and_never_past_either_end() -> None:
    assert moved(0, 5, "down", page=3) == 1
    assert moved(0, 5, "up", page=3) == 0  # the top stays the top
    assert moved(1, 5, "pgdn", page=3) == 4
    assert moved(4, 5, "pgdn", page=3) == 4  # the last stays the last
    assert moved(4, 5, "pgup", page=3) == 1
    assert moved(2, 5, "home", page=3) == 0
    assert moved(2, 5, "end", page=3) == 4
    assert moved(0, 0, "end", page=3) == 0  # an empty list keeps its cursor on row 0
    assert moved(2, 5, "x", page=3) is None  # not a key that moves: the caller's own key


def test_the_rows_on_screen_follow_the_cursor_by_the_least_scroll() -> None:
    assert scrolled(top=0, cursor=3, shown=5) == 0  # already on screen
    assert scrolled(top=0, cursor=7, shown=5) == 3  # below: it becomes the last row shown
    assert scrolled(top=6, cursor=2, shown=5) == 2  # above: it becomes the first

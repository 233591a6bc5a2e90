"""The terminal picker of `funes sessions`: the session list, filtered as you type, with a
preview of the selected session.

`Picker` is the state (pure, tested); `run_picker` draws it with curses and returns the chosen
session, or None when cancelled.

Keys: ↑/↓ move · PgUp/PgDn, Home/End · type to filter (every word must appear in the id,
agent, folder or first prompt) · Backspace · Enter: choose · Esc or Ctrl-C: cancel.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from funes.inspect.sessions import SessionSummary, short_project
from funes.retrieve.formats import short_time

if TYPE_CHECKING:
    import curses


@dataclass
class Picker:
    sessions: list[SessionSummary]
    query: str = ""
    cursor: int = 0
    top: int = 0
    done: bool = False
    chosen: SessionSummary | None = None
    shown: list[SessionSummary] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._filter()

    def key(self, name: str, page: int = 10) -> None:
        """Apply one key: up, down, pgup, pgdn, home, end, backspace, enter, esc, or a
        printable character (added to the filter)."""
        last = max(len(self.shown) - 1, 0)
        moves = {"up": -1, "down": 1, "pgup": -page, "pgdn": page}
        if name in moves:
            self.cursor = max(0, min(last, self.cursor + moves[name]))
        elif name == "home":
            self.cursor = 0
        elif name == "end":
            self.cursor = last
        elif name == "backspace":
            self.query = self.query[:-1]
            self._filter()
        elif name == "enter":
            if self.shown:
                self.chosen = self.shown[self.cursor]
                self.done = True
        elif name == "esc":
            self.done = True
        elif len(name) == 1 and name.isprintable():
            self.query += name
            self._filter()

    def _filter(self) -> None:
        words = self.query.lower().split()
        self.shown = [s for s in self.sessions if all(w in _haystack(s) for w in words)]
        self.cursor = min(self.cursor, max(len(self.shown) - 1, 0))

    @property
    def selected(self) -> SessionSummary | None:
        return self.shown[self.cursor] if self.shown else None

    def line(self, s: SessionSummary, width: int) -> str:
        head = (
            f"{short_time(s.start)}  {s.harness or '-':<11} "
            f"{short_project(s.workdir, s.repo)[:24]:<24} {s.turns:>5}  {s.session_id[:8]}  "
        )
        return (head + (s.first_prompt or "-"))[: max(width - 1, 10)]


def _haystack(s: SessionSummary) -> str:
    return " ".join([s.session_id, s.harness, s.workdir, s.repo, s.first_prompt]).lower()


def preview(s: SessionSummary, width: int) -> list[str]:
    """The selected session, as the pane under the list shows it."""
    span = short_time(s.start) + (f" → {short_time(s.end)}" if s.end else "")
    lines = [
        f"session {s.session_id} · {s.harness or '-'} · {s.workdir or s.repo or '-'}",
        f"{span} · {s.turns} turns · {s.chunks} chunks",
    ]
    lines += textwrap.wrap(s.first_prompt or "-", max(width - 3, 20))[:4]
    sid = s.session_id[:8]
    lines.append(f"funes show {sid} · funes resume {sid} · funes catchup {sid}")
    return lines


def run_picker(sessions: list[SessionSummary], title: str) -> SessionSummary | None:
    import curses

    picker = Picker(sessions)
    try:
        curses.wrapper(lambda screen: _loop(screen, picker, title))
    except KeyboardInterrupt:
        return None
    return picker.chosen


_PREVIEW_ROWS = 8


def _loop(screen: curses.window, picker: Picker, title: str) -> None:
    import curses

    keys = {
        curses.KEY_UP: "up",
        curses.KEY_DOWN: "down",
        curses.KEY_PPAGE: "pgup",
        curses.KEY_NPAGE: "pgdn",
        curses.KEY_HOME: "home",
        curses.KEY_END: "end",
        curses.KEY_BACKSPACE: "backspace",
        127: "backspace",
        8: "backspace",
        curses.KEY_ENTER: "enter",
        10: "enter",
        13: "enter",
        27: "esc",
    }
    curses.curs_set(0)
    screen.keypad(True)
    while not picker.done:
        height, width = screen.getmaxyx()
        rows = max(height - 4 - _PREVIEW_ROWS, 1)
        if picker.cursor < picker.top:
            picker.top = picker.cursor
        elif picker.cursor >= picker.top + rows:
            picker.top = picker.cursor - rows + 1
        screen.erase()
        screen.addnstr(0, 0, f"{title} · filter: {picker.query}", width - 1, curses.A_BOLD)
        for offset, s in enumerate(picker.shown[picker.top : picker.top + rows]):
            attr = curses.A_REVERSE if picker.top + offset == picker.cursor else 0
            screen.addnstr(1 + offset, 0, picker.line(s, width), width - 1, attr)
        if not picker.shown:
            screen.addnstr(1, 0, "no session matches the filter", width - 1)
        if picker.selected is not None:
            for i, text in enumerate(preview(picker.selected, width)[:_PREVIEW_ROWS]):
                screen.addnstr(2 + rows + i, 0, text, width - 1, curses.A_DIM if i else 0)
        help_line = (
            f"{len(picker.shown)}/{len(picker.sessions)} sessions   type to filter  ↑↓ move  "
            "Enter choose  Esc cancel"
        )
        screen.addnstr(height - 1, 0, help_line, width - 1, curses.A_DIM)
        screen.refresh()
        code = screen.get_wch()
        if isinstance(code, str):
            name = keys.get(ord(code), code) if len(code) == 1 else ""
        else:
            name = keys.get(code, "")
        if name == "esc":
            name = _escape_sequence(screen) or "esc"
        picker.key(name, page=rows)


_ARROWS = {"A": "up", "B": "down", "H": "home", "F": "end"}


def _escape_sequence(screen: curses.window) -> str | None:
    """An arrow sent as `ESC [ B` or `ESC O B` that curses did not translate (a terminal left
    in the other cursor-key mode); a lone ESC is None (it cancels)."""
    screen.nodelay(True)
    try:
        first, second = screen.getch(), screen.getch()
    finally:
        screen.nodelay(False)
    if first in (ord("["), ord("O")) and 0 <= second < 256:
        return _ARROWS.get(chr(second), "")
    return None

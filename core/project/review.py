"""The terminal review of `funes curate`: one line per session, decided with the arrow keys.

`Review` is the state (pure, tested); `run_review` draws it with curses. Decisions are saved
together when the review ends with Enter; q, Esc or Ctrl-C cancel it, and the decisions file is
left as it was (a review someone backs out of must not publish what they were trying out).

Keys: ↑/↓ (k/j) move · → (l) include · ← (h) exclude · the same arrow again: back to pending ·
space: include/pending · PgUp/PgDn, Home/End · Enter: save · q, Esc or Ctrl-C: cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from funes.list_cursor import escape_sequence, moved, scrolled
from funes.project.curate import Candidate, Decisions

if TYPE_CHECKING:
    import curses

MARKS = {"include": "+", "exclude": "-", "": " "}
_VI_MOVES = {"k": "up", "j": "down"}


@dataclass
class Review:
    candidates: list[Candidate]
    decisions: Decisions
    cursor: int = 0
    top: int = 0
    done: bool = False
    cancelled: bool = False

    def key(self, name: str, page: int = 10) -> None:
        """Apply one key (names as in the module doc: up, down, right, left, space, …)."""
        if name in ("q", "esc"):
            self.cancel()
            return
        if name == "enter":
            self.decisions.save()
            self.done = True
            return
        if not self.candidates:
            return
        to = moved(self.cursor, len(self.candidates), _VI_MOVES.get(name, name), page)
        if to is not None:
            self.cursor = to
        elif name in ("right", "l"):
            self._toggle("include")
        elif name in ("left", "h"):
            self._toggle("exclude")
        elif name == "space":
            self._toggle("include")

    def cancel(self) -> None:
        """End the review without saving: the decisions file keeps what it had."""
        self.cancelled = self.done = True

    def _toggle(self, decision: str) -> None:
        candidate = self.candidates[self.cursor]
        same = candidate.decision == decision and not candidate.stale
        candidate.decision = "" if same else decision
        candidate.reviewed_chunks = candidate.chunks if candidate.decision == "include" else None
        self.decisions.decide(candidate, candidate.decision)

    def counts(self) -> tuple[int, int, int]:
        included = sum(c.decision == "include" and not c.stale for c in self.candidates)
        excluded = sum(c.decision == "exclude" for c in self.candidates)
        return included, excluded, len(self.candidates) - included - excluded

    def line(self, candidate: Candidate, width: int) -> str:
        mark = "!" if candidate.stale else MARKS[candidate.decision]
        head = (
            f"[{mark}] {candidate.date} {candidate.session_id[:8]} "
            f"{candidate.harness or '-':<11} {candidate.chunks:>5} "
        )
        prompt = candidate.prompt or "(no prompt)"
        return (head + prompt)[: max(width - 1, 10)]


def run_review(review: Review, title: str) -> None:
    import curses

    try:
        curses.wrapper(lambda screen: _loop(screen, review, title))
    except KeyboardInterrupt:
        review.cancel()


def _loop(screen: curses.window, review: Review, title: str) -> None:
    import curses

    keys = {
        curses.KEY_UP: "up",
        curses.KEY_DOWN: "down",
        curses.KEY_RIGHT: "right",
        curses.KEY_LEFT: "left",
        curses.KEY_PPAGE: "pgup",
        curses.KEY_NPAGE: "pgdn",
        curses.KEY_HOME: "home",
        curses.KEY_END: "end",
        curses.KEY_ENTER: "enter",
        10: "enter",
        13: "enter",
        27: "esc",
        32: "space",
    }
    curses.curs_set(0)
    colours = _colours(curses)
    while not review.done:
        height, width = screen.getmaxyx()
        rows = max(height - 4, 1)
        review.top = scrolled(review.top, review.cursor, rows)
        screen.erase()
        screen.addnstr(0, 0, title, width - 1, curses.A_BOLD)
        shown = review.candidates[review.top : review.top + rows]
        for offset, candidate in enumerate(shown):
            index = review.top + offset
            attr = colours(candidate) | (curses.A_REVERSE if index == review.cursor else 0)
            screen.addnstr(2 + offset, 0, review.line(candidate, width), width - 1, attr)
        if not review.candidates:
            screen.addnstr(2, 0, "no session of this project in your local memory", width - 1)
        included, excluded, pending = review.counts()
        help_line = (
            f"{included} included · {excluded} excluded · {pending} pending   "
            "→ include  ← exclude  (again: pending)  ↑↓ move  Enter save  q/Esc cancel"
        )
        screen.addnstr(height - 1, 0, help_line, width - 1, curses.A_DIM)
        screen.refresh()
        code = screen.getch()
        name = escape_sequence(screen, _ARROWS) if code == 27 else None
        review.key(name or keys.get(code, chr(code) if 0 <= code < 256 else ""), page=rows)


_ARROWS = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end"}


def _colours(curses: ModuleType) -> Callable[[Candidate], int]:
    try:
        curses.start_color()
        curses.use_default_colors()
        curses.init_pair(1, curses.COLOR_GREEN, -1)
        curses.init_pair(2, curses.COLOR_RED, -1)
        curses.init_pair(3, curses.COLOR_YELLOW, -1)
    except curses.error:
        return lambda _c: 0

    def pick(candidate: Candidate) -> int:
        if candidate.stale:
            return curses.color_pair(3)
        return {"include": curses.color_pair(1), "exclude": curses.color_pair(2)}.get(
            candidate.decision, 0
        )

    return pick

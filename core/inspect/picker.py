"""The terminal picker of `funes sessions`: every session of the memory, found by what was said
in it as you type, with a preview of where the selected one stopped.

`Picker` is the state (pure, tested); `run_picker` draws it with curses and returns what the
user chose to do with which session, or None when cancelled.

Typing filters: a session is shown when every word is in its handle, agent, folder or title, or
when the memory's full-text index finds every word in what was said in it (`search`, given by
the caller). Keys: ↑/↓ move · PgUp/PgDn, Home/End · Backspace · Enter: resume the session in
its agent · Ctrl-O: read it in the pager · Ctrl-Y: copy the command that resumes it · Esc or
Ctrl-C: cancel.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from funes.inspect.sessions import SessionSummary, short_project
from funes.list_cursor import escape_sequence, moved, scrolled
from funes.retrieve.formats import short_time

if TYPE_CHECKING:
    import curses

    from funes.retrieve.catchup import Catchup, Item

# The actions a key asks for: Enter resumes and ends the picker, the others come back to it.
RESUME, SHOW, COPY = "resume", "show", "copy"
ACTION_KEYS = {"enter": RESUME, "ctrl-o": SHOW, "ctrl-y": COPY}
HELP = "Enter resume  ^O read  ^Y copy resume command  ↑↓ move  Esc cancel"


@dataclass
class Picker:
    sessions: list[SessionSummary]
    # Session id → how many of its chunks say every word of a query (the full-text index).
    search: Callable[[str], dict[str, int]] | None = None
    query: str = ""
    cursor: int = 0
    top: int = 0
    done: bool = False
    chosen: SessionSummary | None = None
    action: str = ""  # what the last action key asked for (RESUME ends the picker)
    status: str = ""  # a line of feedback (what was copied, what failed)
    shown: list[SessionSummary] = field(default_factory=list)
    said: dict[str, int] = field(default_factory=dict)  # the query's full-text matches

    def __post_init__(self) -> None:
        self._filter()

    def key(self, name: str, page: int = 10) -> None:
        """Apply one key: up, down, pgup, pgdn, home, end, backspace, enter, ctrl-o, ctrl-y,
        esc, or a printable character (added to the filter)."""
        self.action = ""
        to = moved(self.cursor, len(self.shown), name, page)
        if to is not None:
            self.cursor = to
        elif name == "backspace":
            self.query = self.query[:-1]
            self._filter()
        elif name in ACTION_KEYS:
            if self.shown:
                self.chosen = self.shown[self.cursor]
                self.action = ACTION_KEYS[name]
                self.done = self.action == RESUME
        elif name == "esc":
            self.chosen = None
            self.done = True
        elif len(name) == 1 and name.isprintable():
            self.query += name
            self._filter()

    def _filter(self) -> None:
        words = self.query.lower().split()
        self.said = self.search(self.query) if self.search is not None and words else {}
        titled = [s for s in self.sessions if all(w in _haystack(s) for w in words)]
        named = {s.session_id for s in titled}
        # Those whose list line matches first, then those that said it, most mentions first.
        spoken = [
            s for s in self.sessions if s.session_id in self.said and s.session_id not in named
        ]
        spoken.sort(key=lambda s: -self.said[s.session_id])
        self.shown = titled + spoken
        self.cursor = min(self.cursor, max(len(self.shown) - 1, 0))
        self.top = min(self.top, self.cursor)

    @property
    def selected(self) -> SessionSummary | None:
        return self.shown[self.cursor] if self.shown else None

    def line(self, s: SessionSummary, width: int) -> str:
        handle = s.handle or s.session_id
        mark = "↳ " if s.parent else ""
        said = self.said.get(s.session_id)
        hits = f"[{said}×] " if said else ""
        head = (
            f"{short_time(s.start)}  {s.harness or '-':<11} "
            f"{short_project(s.workdir, s.repo)[:22]:<22} {s.turns:>5}  {handle:<10} "
        )
        return (head + hits + mark + (s.first_prompt or "-"))[: max(width - 1, 10)]


def _haystack(s: SessionSummary) -> str:
    return " ".join([s.session_id, s.handle, s.harness, s.workdir, s.repo, s.first_prompt]).lower()


def resume_line(s: SessionSummary) -> str:
    """The shell line that resumes `s` (from its folder), or `funes resume HANDLE`."""
    from funes.inspect.resume import agent_argv

    argv = agent_argv(s.harness, s.session_id, s.source_path)
    if not argv:
        return f"funes resume {s.handle or s.session_id}"
    import shlex

    line = shlex.join(argv)
    return f"cd {shlex.quote(s.workdir)} && {line}" if s.workdir else line


def preview(s: SessionSummary, width: int, digest: Catchup | None = None) -> list[str]:
    """The selected session as the pane under the list shows it: what it is, then (from its
    catch-up digest) the last prompt, the final answer, the files changed and where it
    stopped, then its commands."""
    span = short_time(s.start) + (f" → {short_time(s.end)}" if s.end else "")
    handle = s.handle or s.session_id
    lines = [
        f"session {handle} · {s.harness or '-'} · {s.workdir or s.repo or '-'} · {span} · "
        f"{s.turns} turns",
    ]
    if s.parent:
        task = f" · task: {s.task}" if s.task else ""
        lines.append(f"subagent of {s.parent}" + (" (not in the memory)" if s.stray else "") + task)
    room = max(width - 14, 20)
    if digest is None:
        lines += ["title:      " + line for line in textwrap.wrap(s.first_prompt or "-", room)[:2]]
    else:
        lines += _digest_lines(digest, room)
    lines.append(f"resume: {resume_line(s)}")
    return lines


def _digest_lines(digest: Catchup, room: int) -> list[str]:
    by_kind: dict[str, Item] = {}
    for item in digest.items:
        by_kind[item.section] = item  # the last of each kind
    lines = []
    labels = (
        ("asked", "last prompt"),
        ("concluded", "answer"),
        ("last said", "last said"),
        ("files", "files"),
        ("stopped", "stopped"),
    )
    for kind, label in labels:
        found = by_kind.get(kind)
        if found is None:
            continue
        text = found.text
        if kind == "files":
            text = next((ln for ln in text.splitlines() if ln.startswith("changed:")), "")
            text = text.removeprefix("changed: ")
            if not text:
                continue
        if kind == "stopped":
            text = " · ".join(text.splitlines()[:2]).removeprefix("stopped mid-work: ")
        wrapped = textwrap.wrap(" ".join(text.split()), room) or ["-"]
        rows = 2 if kind in ("concluded", "last said") else 1
        lines += [f"{label + ':':<12}{wrapped[0]}"] + [" " * 12 + w for w in wrapped[1:rows]]
    if "stopped" not in by_kind and "concluded" in by_kind:
        lines.append(f"{'stopped:':<12}ended on a reply")
    return lines


def run_picker(
    sessions: list[SessionSummary],
    title: str,
    *,
    search: Callable[[str], dict[str, int]] | None = None,
    digest: Callable[[SessionSummary], Catchup | None] | None = None,
    read: Callable[[SessionSummary], str] | None = None,
) -> Picker:
    """Run the picker until the user resumes a session (`picker.action == RESUME`) or cancels
    (`picker.chosen is None`). `digest` gives a session's catch-up for the preview, `read` the
    text Ctrl-O pages through."""
    import curses

    picker = Picker(sessions, search=search)
    try:
        curses.wrapper(lambda screen: _loop(screen, picker, title, digest, read))
    except KeyboardInterrupt:
        picker.chosen, picker.action = None, ""
    return picker


_PREVIEW_ROWS = 9
_KEYS = {
    "\x0f": "ctrl-o",
    "\x19": "ctrl-y",
    "\x7f": "backspace",
    "\x08": "backspace",
    "\n": "enter",
    "\r": "enter",
    "\x1b": "esc",
}


def _loop(
    screen: curses.window,
    picker: Picker,
    title: str,
    digest: Callable[[SessionSummary], Catchup | None] | None,
    read: Callable[[SessionSummary], str] | None,
) -> None:
    import curses

    keys = {
        curses.KEY_UP: "up",
        curses.KEY_DOWN: "down",
        curses.KEY_PPAGE: "pgup",
        curses.KEY_NPAGE: "pgdn",
        curses.KEY_HOME: "home",
        curses.KEY_END: "end",
        curses.KEY_BACKSPACE: "backspace",
        curses.KEY_ENTER: "enter",
    }
    digests: dict[str, Catchup | None] = {}
    curses.curs_set(0)
    screen.keypad(True)
    while not picker.done:
        height, width = screen.getmaxyx()
        rows = max(height - 4 - _PREVIEW_ROWS, 1)
        picker.top = scrolled(picker.top, picker.cursor, rows)
        screen.erase()
        screen.addnstr(0, 0, f"{title} · search: {picker.query}", width - 1, curses.A_BOLD)
        for offset, s in enumerate(picker.shown[picker.top : picker.top + rows]):
            attr = curses.A_REVERSE if picker.top + offset == picker.cursor else 0
            screen.addnstr(1 + offset, 0, picker.line(s, width), width - 1, attr)
        if not picker.shown:
            screen.addnstr(1, 0, "no session says or is titled so", width - 1)
        status = picker.status or (f"{len(picker.shown)}/{len(picker.sessions)} sessions   {HELP}")
        screen.addnstr(height - 1, 0, status, width - 1, curses.A_DIM)
        selected = picker.selected
        if selected is not None:
            # The list first; the preview reads the session, so only once the keys pause.
            _preview(screen, picker, selected, 2 + rows, width, None)
            screen.refresh()
            if digest is not None and not _key_waiting(screen):
                if selected.session_id not in digests:
                    digests[selected.session_id] = _safe(digest, selected)
                _preview(screen, picker, selected, 2 + rows, width, digests[selected.session_id])
        screen.refresh()
        code = screen.get_wch()
        if isinstance(code, str):
            name = _KEYS.get(code, code) if len(code) == 1 else ""
        else:
            name = keys.get(code, "")
        if name == "esc":
            name = escape_sequence(screen, _ARROWS) or "esc"
        picker.status = ""
        picker.key(name, page=rows)
        if picker.action == SHOW and picker.chosen is not None and read is not None:
            _page(screen, read(picker.chosen))
        elif picker.action == COPY and picker.chosen is not None:
            from funes.inspect.terminal import copy

            line = resume_line(picker.chosen)
            how = copy(line)
            picker.status = f"copied ({how}): {line}" if how else f"could not copy: {line}"


def _safe(digest: Callable[[SessionSummary], Catchup | None], s: SessionSummary) -> Any:
    try:
        return digest(s)
    except Exception:  # a preview never ends the picker; the list line still says what it is
        return None


def _preview(
    screen: curses.window,
    picker: Picker,
    s: SessionSummary,
    row: int,
    width: int,
    digest: Catchup | None,
) -> None:
    import curses

    for i in range(_PREVIEW_ROWS):
        screen.move(row + i, 0)
        screen.clrtoeol()
    for i, text in enumerate(preview(s, width, digest)[:_PREVIEW_ROWS]):
        screen.addnstr(row + i, 0, text, width - 1, curses.A_DIM if i else curses.A_BOLD)


def _key_waiting(screen: curses.window) -> bool:
    screen.nodelay(True)
    try:
        code = screen.getch()
    finally:
        screen.nodelay(False)
    if code == -1:
        return False
    import curses

    curses.ungetch(code)
    return True


def _page(screen: curses.window, text: str) -> None:
    """Leave curses for the pager, then come back to the list."""
    import curses

    from funes.inspect.terminal import page

    curses.def_prog_mode()
    curses.endwin()
    try:
        page(text)
    finally:
        curses.reset_prog_mode()
        screen.clear()


_ARROWS = {"A": "up", "B": "down", "H": "home", "F": "end"}

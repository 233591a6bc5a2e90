"""What a terminal offers a command beyond printing: a pager, colours, the clipboard."""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import sys

# ANSI styles, used only when the output is a terminal that is not asked to stay plain.
STYLES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


def wants_colour(stream: object = None) -> bool:
    """Colour on a terminal, unless NO_COLOR is set (https://no-color.org) or TERM is dumb."""
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(isatty and isatty())


# Escape sequences and the other control characters a transcript may hold (tabs and newlines
# stay): printed to a terminal they could set its title, move the cursor or rewrite the screen.
_CONTROLS = re.compile(
    r"\x1b\[[0-9;:?]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|[\x00-\x08\x0b-\x1f\x7f\x9b]"
)


def without_controls(text: str) -> str:
    """`text` with no escape sequence or control character but tab and newline."""
    return _CONTROLS.sub("", text)


def style(text: str, *names: str) -> str:
    codes = ";".join(STYLES[n] for n in names)
    return f"\x1b[{codes}m{text}\x1b[0m" if codes else text


def page(text: str) -> bool:
    """Show `text` in the user's pager ($FUNES_PAGER, $PAGER, else `less -R`: colours kept,
    quits at once when it fits the screen). False when no pager could run (print it instead)."""
    command = os.environ.get("FUNES_PAGER") or os.environ.get("PAGER") or ""
    if not command:
        if shutil.which("less") is None:
            return False
        command = "less -R -F -X"
    env = dict(os.environ)
    env.setdefault("LESS", "R")
    try:
        pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        return False
    assert pager.stdin is not None
    try:
        pager.stdin.write(text.encode("utf-8", "replace"))
        pager.stdin.close()
    except BrokenPipeError:  # the reader quit before the end: that is fine
        pass
    pager.wait()
    return True


# Clipboard programs tried in order, each with its arguments.
_CLIPBOARDS = (
    ("pbcopy",),
    ("wl-copy",),
    ("xclip", "-selection", "clipboard"),
    ("xsel", "--clipboard", "--input"),
)


def copy(text: str) -> str:
    """Put `text` on the clipboard: through a clipboard program when one runs here, and as an
    OSC 52 sequence to the terminal (which tmux, iTerm2, kitty, WezTerm and Windows Terminal
    take, over ssh too). Says how it was copied."""
    how = "terminal"
    for argv in _CLIPBOARDS:
        if shutil.which(argv[0]) is None:
            continue
        if argv[0] != "pbcopy" and not (
            os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
        ):
            continue
        try:
            subprocess.run(argv, input=text.encode(), check=True, timeout=5)
            how = argv[0]
            break
        except (OSError, subprocess.SubprocessError):
            continue
    encoded = base64.b64encode(text.encode()).decode()
    try:
        with open("/dev/tty", "w") as tty:
            tty.write(f"\x1b]52;c;{encoded}\x07")
    except OSError:
        if how == "terminal":
            return ""
    return how

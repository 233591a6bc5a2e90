"""Text from transcripts made safe to print on a terminal (or hand to an agent that prints it).

A transcript holds whatever a tool printed or a web page said, escape sequences included. Sent
raw to a terminal, an OSC 52 sequence writes the user's clipboard, OSC 2 sets the window title,
DCS and CSI sequences reprogram or redraw the screen (a carriage return or a cursor move can
even overwrite funes's own lines with text that looks like them). `strip_controls` removes every
escape sequence whole (introducer, parameters, payload and terminator) and every other C0 and C1
control character, keeping only newline and tab, so what is printed is the text and nothing the
terminal acts on.
"""

from __future__ import annotations

import re

# Alternatives in order: the first that matches at a position wins.
_CONTROLS = re.compile(
    # CSI (7-bit `ESC [` or 8-bit U+009B): parameters, intermediates, one final byte.
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    # OSC, DCS, SOS, PM, APC (7-bit `ESC ] P X ^ _` or 8-bit): a string up to BEL or ST. An
    # unterminated one ends at the line's end, so it cannot swallow the lines after it.
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    # Any other escape sequence (`ESC c`, `ESC ( B`, `ESC 7`), or a lone ESC.
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
    # Every other C0 control but tab and newline (carriage return, backspace, bell…), DEL, C1.
    r"|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]"
)


def strip_controls(text: str) -> str:
    """`text` without escape sequences and control characters, newlines and tabs kept."""
    return _CONTROLS.sub("", text)

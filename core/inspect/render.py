"""Stored text → HTML for `funes ui`: Markdown for what people and models wrote, highlighted code
for tool calls and fenced blocks, terminal colours for tool output.

Transcripts hold anything (HTML, scripts, escape sequences), so every character of them reaches
the page escaped: Markdown is rendered with raw HTML off (a `<script>` in a transcript is shown
as the text `<script>`), links keep only http(s) and mailto targets, images become links (the
page loads nothing from the network), and ANSI escapes become a fixed set of colour classes or
disappear. The page sanitises the result once more before it inserts it (static/app.js).
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import Any

# Beyond these sizes a block is shown as escaped text: Markdown and highlighting cost time
# roughly linear in size, and a 200 kB tool output is read as text anyway.
MARKDOWN_LIMIT = 60_000
HIGHLIGHT_LIMIT = 20_000
SAFE_LINK = re.compile(r"^(https?://|mailto:)", re.IGNORECASE)
# Tools whose input is a shell command line.
SHELL_TOOLS = {"bash", "shell", "exec_command", "local_shell", "local_shell_call", "run_command"}
# CSI (colours, cursor moves), OSC (titles, hyperlinks) and any other lone escape.
ANSI = re.compile(r"\x1b\[([0-9;:?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
# The sixteen terminal colours as (r, g, b), to map 256-colour and true-colour codes onto.
_PALETTE = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]  # fmt: skip


def tool_label_removed(block_type: str, tool_name: str | None, text: str) -> str:
    """A block's text without the `[tool_use NAME] ` label the indexer puts in front of tool
    blocks (so search matches the tool's name): the page shows the name once, as the label."""
    if block_type not in ("tool_use", "tool_result"):
        return text
    for label in (f"[{block_type} {tool_name}]", f"[{block_type}]"):
        if text.startswith(label):
            return text[len(label) :].lstrip(" ")
    return text


def block_html(block_type: str, tool_name: str | None, text: str, role: str = "") -> str:
    """The HTML of one block, its tool label already removed, rendered per tool: Markdown for
    text and reasoning (a user's without the harness's wrapper tags) and for a subagent's
    report, an edit or a patch as a diff, a plan as a checklist, a shell call's command
    highlighted (its description as prose), a file read without its line-number arrows, diff
    output coloured, other tool output as a terminal shows it."""
    from funes.inspect import tools

    if block_type in ("text", "thinking"):
        if role == "user" and "\x1b[" not in text:
            return _user_text_html(text)
        # Text holding colour codes is a terminal's output (Claude Code records a local
        # command's, e.g. `/context`, as the user's text): shown as a terminal shows it.
        return terminal_html(text) if "\x1b[" in text else markdown_html(text)
    if block_type == "tool_use":
        if tools.is_edit(tool_name):
            diff = tools.edit_diff(text)
            if diff is not None:
                return diff_html(diff[1], diff[0])
        if tools.is_plan(tool_name):
            steps = tools.checklist(text)
            if steps:
                return checklist_html(steps)
        if tools.is_subagent_call(tool_name):
            return _subagent_call_html(text)
        if tools.is_patch(tool_name, text):
            return diff_html(text.splitlines(), "")
        return _call_html(tool_name, text)
    if tools.is_subagent_call(tool_name):
        return markdown_html(text)  # a subagent's report is Markdown
    if tools.is_read(tool_name) or tools.is_edit(tool_name):
        text = tools.without_line_numbers(text)
    if _looks_like_diff(text):
        return diff_html(strip_ansi(text).splitlines(), "")
    return terminal_html(text)


def _subagent_call_html(text: str) -> str:
    """A Task/Agent call: its description and agent type on one line, its prompt as Markdown."""
    from funes.retrieve.subagents import call_fields

    fields = call_fields(text)
    if "prompt" not in fields:
        return markdown_html(text)
    head = " · ".join(
        escape(fields[key], quote=False)
        for key in ("description", "subagent_type")
        if fields.get(key)
    )
    return f'<p class="call-note"><strong>{head}</strong></p>' + markdown_html(fields["prompt"])


def _without_wrappers(text: str) -> str:
    from funes.retrieve.said import strip_wrappers

    return strip_wrappers(text)


def _user_text_html(text: str) -> str:
    """A user's text without the harness's wrapper tags: what the person typed as Markdown,
    each wrapper's content as a muted line of context named in words."""
    from funes.retrieve.said import CONTEXT_NAMES, wrapped_context

    if "<" not in text:
        return markdown_html(text)
    context = [
        f'<p class="call-note"><span class="context-kind">{escape(CONTEXT_NAMES.get(tag, tag))}'
        f"</span> {escape(strip_ansi(body), quote=False)}</p>"
        for tag, body in wrapped_context(text)
        if body and tag != "command-message"
    ]
    typed = _without_wrappers(text)
    return "".join(context) + (markdown_html(typed) if typed else "")


_DIFF_START = re.compile(r"^(diff --git |--- a/|@@ -\d)", re.M)


def _looks_like_diff(text: str) -> bool:
    return bool(_DIFF_START.search(text[:4000])) and "\n+" in text and "\n-" in text


def diff_html(lines: list[str], path: str) -> str:
    """A diff: `+` lines green, `-` lines red, hunk and file headers marked; `path` above."""
    out = []
    for line in lines:
        css = ""
        if line.startswith(("+++", "---", "diff --git", "*** ")):
            css = "diff-file"
        elif line.startswith("@@"):
            css = "diff-hunk"
        elif line.startswith("+"):
            css = "diff-add"
        elif line.startswith("-"):
            css = "diff-del"
        body = escape(line, quote=False) or " "
        out.append(f'<span class="{css}">{body}</span>' if css else body)
    head = f'<p class="diff-path">{escape(path, quote=False)}</p>' if path else ""
    return f'{head}<pre class="code diff">' + "\n".join(out) + "</pre>"


def checklist_html(steps: list[tuple[str, str]]) -> str:
    marks = {"completed": "☑", "in_progress": "▶", "cancelled": "☒"}
    items = "".join(
        f'<li class="step step-{escape(status, quote=True)}"><span class="box">'
        f"{marks.get(status, '☐')}</span> {escape(step, quote=False)}</li>"
        for status, step in steps
    )
    return f'<ul class="checklist">{items}</ul>'


def _call_html(tool_name: str | None, text: str) -> str:
    """A tool call: a shell command highlighted as shell, its other keys (a `description`) as
    prose beside it; any other input highlighted by what it looks like."""
    language = _input_language(tool_name, text)
    if language == "bash" and "\ndescription: " in text and text.startswith("command:"):
        command, _, rest = text.partition("\ndescription: ")
        command = command.removeprefix("command:").lstrip(" \n")
        note = f'<p class="call-note">{escape(rest.strip(), quote=False)}</p>'
        return note + code_html(command, "bash")
    return code_html(text, language)


def markdown_html(text: str) -> str:
    text = strip_ansi(text)
    if len(text) > MARKDOWN_LIMIT:
        return f"<pre>{escape(text, quote=False)}</pre>"
    return _markdown().render(text)


def code_html(text: str, language: str | None) -> str:
    """A `<pre>` of `text`, highlighted when `language` is one Pygments knows."""
    text = strip_ansi(text)
    body = _highlight(text, language) if language else ""
    return f'<pre class="code">{body or escape(text, quote=False)}</pre>'


def terminal_html(text: str) -> str:
    """A `<pre>` of terminal output: SGR colours, bold, dim, italic and underline become
    `ansi-*` classes; every other escape sequence is dropped."""
    out: list[str] = []
    classes: list[str] = []
    position = 0
    style = _Style()
    for match in ANSI.finditer(text):
        out.append(_span(text[position : match.start()], classes))
        position = match.end()
        if match.group(2) == "m":
            style.apply(match.group(1))
            classes = style.classes()
    out.append(_span(text[position:], classes))
    return f'<pre class="terminal">{"".join(out)}</pre>'


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text) if "\x1b" in text else text


def _span(text: str, classes: list[str]) -> str:
    if not text:
        return ""
    body = escape(text, quote=False)
    return f'<span class="{" ".join(classes)}">{body}</span>' if classes else body


class _Style:
    """The SGR state of a terminal: foreground, background and attributes."""

    def __init__(self) -> None:
        self.fg: int | None = None
        self.bg: int | None = None
        self.attrs: set[str] = set()

    def classes(self) -> list[str]:
        found = sorted(self.attrs)
        if self.fg is not None:
            found.append(f"ansi-fg{self.fg}")
        if self.bg is not None:
            found.append(f"ansi-bg{self.bg}")
        return found

    def apply(self, params: str) -> None:
        codes = [int(c) if c.isdigit() else 0 for c in re.split(r"[;:]", params or "0")]
        i = 0
        while i < len(codes):
            code = codes[i]
            if code in (38, 48):
                colour, used = _extended_colour(codes[i + 1 :])
                if code == 38:
                    self.fg = colour
                else:
                    self.bg = colour
                i += 1 + used
                continue
            self._simple(code)
            i += 1

    def _simple(self, code: int) -> None:
        attrs = {1: "ansi-bold", 2: "ansi-dim", 3: "ansi-italic", 4: "ansi-underline"}
        if code == 0:
            self.fg = self.bg = None
            self.attrs.clear()
        elif code in attrs:
            self.attrs.add(attrs[code])
        elif code == 22:
            self.attrs -= {"ansi-bold", "ansi-dim"}
        elif code in (23, 24):
            self.attrs.discard("ansi-italic" if code == 23 else "ansi-underline")
        elif 30 <= code <= 37 or 90 <= code <= 97:
            self.fg = code - 30 if code < 90 else code - 82
        elif 40 <= code <= 47 or 100 <= code <= 107:
            self.bg = code - 40 if code < 100 else code - 92
        elif code == 39:
            self.fg = None
        elif code == 49:
            self.bg = None


def _extended_colour(rest: list[int]) -> tuple[int | None, int]:
    """(one of the 16 colours, how many codes were read) for `5;N` or `2;R;G;B`."""
    if rest[:1] == [5] and len(rest) >= 2:
        n = rest[1]
        if n < 16:
            return n, 2
        if n >= 232:  # grey ramp
            level = 8 + (n - 232) * 10
            return _nearest((level, level, level)), 2
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return _nearest((steps[n // 36], steps[n // 6 % 6], steps[n % 6])), 2
    if rest[:1] == [2] and len(rest) >= 4:
        return _nearest((rest[1], rest[2], rest[3])), 4
    return None, len(rest[:1])


def _nearest(rgb: tuple[int, int, int]) -> int:
    return min(
        range(16), key=lambda i: sum((a - b) ** 2 for a, b in zip(_PALETTE[i], rgb, strict=True))
    )


def _input_language(tool_name: str | None, text: str) -> str | None:
    name = (tool_name or "").lower()
    if name in SHELL_TOOLS:
        return "bash"
    if text.startswith(("*** Begin Patch", "diff --git", "--- ")):
        return "diff"
    if text.startswith(("{", "[")) and text.rstrip().endswith(("}", "]")):
        return "json"
    return None


def _highlight(code: str, language: str, _attrs: Any = None) -> str:
    """Pygments' spans for `code` (short class names, styled in static/style.css), or "" when
    the language is unknown or the code too long (then it is shown escaped)."""
    if not language or len(code) > HIGHLIGHT_LIMIT:
        return ""
    from pygments import highlight
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language.strip().split()[0].lower())
    except ClassNotFound:
        return ""
    return str(highlight(code, lexer, _formatter()))


@lru_cache(maxsize=1)
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt(
        "commonmark",
        {"html": False, "linkify": False, "typographer": False, "highlight": _highlight},
    )
    md.enable(["table", "strikethrough"])
    md.disable("image")  # `![alt](url)` stays text: the page loads nothing from the network
    md.validateLink = _safe_link  # type: ignore[method-assign]

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "noopener noreferrer")
        tokens[idx].attrSet("target", "_blank")
        return str(renderer.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)
    return md


def _safe_link(url: str) -> bool:
    cleaned = re.sub(r"[\x00-\x20\x7f]", "", url)
    return bool(SAFE_LINK.match(cleaned))

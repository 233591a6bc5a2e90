"""What `funes ui` makes of stored text: Markdown, highlighted code and terminal colours, with
every piece of markup a transcript holds reaching the page as text."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from funes.inspect.render import block_html, markdown_html, terminal_html, tool_label_removed

# What rendering may produce, and nothing else (the page's sanitiser keeps the same set).
ALLOWED_TAGS = {
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "s", "code", "pre", "a", "ul",
    "ol", "li", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "hr", "br", "span",
}  # fmt: skip
PAYLOADS = [
    '<script>window.__pwned=1</script>',
    '<img src=x onerror="window.__pwned=2">',
    '[click](javascript:window.__pwned=3)',
    '[click](JaVaScRiPt:window.__pwned=4)',
    '[click]( javascript:window.__pwned=5 )',
    '<javascript:window.__pwned=6>',
    '[ref][1]\n\n[1]: javascript:window.__pwned=7',
    '![pic](javascript:window.__pwned=8)',
    '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '<a href="javascript:window.__pwned=9">a</a>',
    '```html\n<script>window.__pwned=10</script>\n<img src=x onerror=alert(1)>\n```',
    '`<img src=x onerror=alert(1)>`',
    '| a | <b onmouseover=alert(1)>b</b> |\n| - | - |\n| <script>x</script> | [y](javascript:z) |',
    '<svg onload=alert(1)><iframe src="https://evil.example"></iframe>',
    '<!-- comment --><style>body{display:none}</style>',
]  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


def tags_of(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.found


def assert_inert(html: str) -> None:
    """Only the tags rendering makes, only class attributes and http(s)/mailto links."""
    for tag, attrs in tags_of(html):
        assert tag in ALLOWED_TAGS, (tag, html)
        for name, value in attrs:
            if tag == "a" and name == "href":
                assert (value or "").startswith(("https://", "http://", "mailto:")), html
            else:
                assert name in {"class", "rel", "target"}, (name, html)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markup_in_a_transcript_is_shown_never_run(payload: str) -> None:
    for block_type in ("text", "thinking", "tool_use", "tool_result"):
        html = block_html(block_type, "Bash", payload)
        assert_inert(html)
        assert "javascript:" not in "".join(
            str(value) for _, attrs in tags_of(html) for _, value in attrs
        )
    # What the payload says is still there to read, as text.
    if payload.startswith("<script>"):
        assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in markdown_html(payload)


def test_terminal_escapes_around_markup_become_colour_and_the_markup_text() -> None:
    html = terminal_html("\x1b[1;31m<script>alert(1)</script>\x1b[0m ok \x1b]0;title\x07\x1b[2K")
    assert html == (
        '<pre class="terminal"><span class="ansi-bold ansi-fg1">'
        "&lt;script&gt;alert(1)&lt;/script&gt;</span> ok </pre>"
    )
    assert_inert(html)
    # 24-bit and 256-colour codes map onto the sixteen colours the page styles; the text stays.
    grey = terminal_html("\x1b[38;2;136;136;136m⛁ 12k tokens\x1b[39m \x1b[48;5;196mhot\x1b[0m")
    assert grey == (
        '<pre class="terminal"><span class="ansi-fg8">⛁ 12k tokens</span> '
        '<span class="ansi-bg1">hot</span></pre>'
    )
    assert "\x1b" not in markdown_html("\x1b[32m**done**\x1b[0m")
    # A local command's coloured output, recorded as text, keeps its colours.
    context = block_html("text", None, "<local-command-stdout>\x1b[1mContext Usage\x1b[22m")
    assert context == (
        '<pre class="terminal">&lt;local-command-stdout&gt;'
        '<span class="ansi-bold">Context Usage</span></pre>'
    )


def test_markdown_is_rendered_and_code_highlighted() -> None:
    html = markdown_html(
        "### Risks\n\n**bold** and `code`\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n"
        "```python\nimport os  # why\n```\n\n- one\n- two\n\n[docs](https://example.com/x)"
    )
    assert "<h3>Risks</h3>" in html and "<strong>bold</strong>" in html
    assert "<table>" in html and "<td>1</td>" in html and "<li>one</li>" in html
    assert '<span class="kn">import</span>' in html and '<span class="c1"># why</span>' in html
    assert (
        '<a href="https://example.com/x" rel="noopener noreferrer" target="_blank">docs</a>' in html
    )
    assert_inert(html)
    # A shell call is highlighted as a command line; an unknown fence language stays plain.
    assert '<span class="p">|</span>' in block_html("tool_use", "Bash", "ls | wc -l")
    assert "<pre><code" in markdown_html("```nosuchlanguage\nx = 1\n```")


def test_the_tool_label_the_indexer_adds_is_shown_once() -> None:
    assert tool_label_removed("tool_use", "Bash", "[tool_use Bash] ls -la") == "ls -la"
    assert tool_label_removed("tool_result", "Bash", "[tool_result Bash] ok") == "ok"
    assert tool_label_removed("tool_result", None, "[tool_result] ok") == "ok"
    assert tool_label_removed("text", None, "[tool_use Bash] quoted") == "[tool_use Bash] quoted"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_tool_renderer_keeps_markup_as_text(payload: str) -> None:
    shapes = [
        ("tool_use", "Edit", f"file_path: /x/{payload}\nold_string:\n{payload}\nnew_string:\nok"),
        ("tool_use", "TodoWrite", f"[in_progress] {payload}\n[pending] next"),
        ("tool_use", "Task", f"description: {payload}\nprompt:\n{payload}\nsubagent_type: x"),
        ("tool_result", "Task", payload),
        ("tool_use", "Bash", f"command: echo {payload}\ndescription: {payload}"),
        (
            "tool_result",
            "Bash",
            f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{payload}\n+ok",
        ),
        ("tool_use", "apply_patch", f"*** Begin Patch\n*** Update File: x\n@@\n-{payload}\n+y"),
        ("text", None, f"<ide_selection>{payload}</ide_selection>{payload}"),
    ]
    for block_type, tool, text in shapes:
        html = block_html(block_type, tool, text, "user")
        assert_inert(html)
        assert "<script" not in html


def test_each_tool_reads_as_people_read_it() -> None:
    edit = block_html(
        "tool_use",
        "Edit",
        "file_path: /srv/app.py\nold_string:\nkeep\nrate = 1\nnew_string:\nkeep\nrate = 2",
    )
    assert '<p class="diff-path">/srv/app.py</p>' in edit
    assert '<span class="diff-del">-rate = 1</span>' in edit
    assert '<span class="diff-add">+rate = 2</span>' in edit
    plan = block_html("tool_use", "update_plan", "[completed] Read it\n[in_progress] Fix it")
    assert 'class="step step-completed"' in plan and "☑</span> Read it" in plan
    assert 'class="step step-in_progress"' in plan
    read = block_html("tool_result", "Read", "     1→import os\n     2→print(os.sep)")
    assert "→" not in read and "import os\nprint(os.sep)" in read
    bash = block_html("tool_use", "Bash", "command: ls -la\ndescription: List the files")
    assert '<p class="call-note">List the files</p>' in bash
    assert "List the files" not in bash.split("</p>", 1)[1]  # the description is not shell
    task = block_html("tool_result", "Task", "## Report\n\n- **done**")
    assert "<h2>Report</h2>" in task and "<strong>done</strong>" in task
    asked = block_html(
        "text", None, "<ide_selection>The user selected x</ide_selection>\nFix it", "user"
    )
    assert "ide_selection" not in asked and "Fix it" in asked
    assert "selected in the IDE</span> The user selected x" in asked
    only = block_html("text", None, "<local-command-stdout>See ya!</local-command-stdout>", "user")
    assert "local-command-stdout" not in only and "command output</span> See ya!" in only
    coloured = block_html("tool_result", "Bash", "diff --git a/x b/x\n@@ -1 +1 @@\n-old\n+new")
    assert '<span class="diff-add">+new</span>' in coloured

"""`funes ui`: a loopback-only, token-guarded web page over the memory, driven in a real headless
Chromium (the distribution's package) through Playwright: search, open a turn, browse sessions,
the overview, and transcript text that never runs as markup."""

from __future__ import annotations

import html as html_lib
import http.client
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.error import HTTPError

import pytest
from agent_harness import write_claude_transcript
from sync_fixtures import SESSIONS_B, add_sessions, hub  # noqa: F401  (hub is a fixture)

from funes.index.indexer import index
from funes.inspect.webui import UIServer

XSS_SESSION = "0a1b2c3d-0000-4000-8000-00000000f00d"
XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> render me as text'
# The same payloads where the page renders Markdown (prose, links, a code fence), and in colour.
XSS_MARKDOWN = (
    '### Payloads\n\n**bold** <img src=x onerror="window.__pwned=3"> '
    "[click me](javascript:window.__pwned=4) <javascript:window.__pwned=5>\n\n"
    "```html\n<script>window.__pwned=6</script>\n```"
)
XSS_TERMINAL = '\x1b[31m<img src=x onerror="window.__pwned=7">\x1b[0m red'
LONG_SESSION = "2638daee-0588-4baa-bd33-68b4c002818e"  # pi, 1,007 turns
PARENT_SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"  # Claude Code, six subagents
SUBAGENT = "agent-a4ca7529859c158c2"
# A GitHub token the indexer must redact: the overview counts its marker by kind.
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def chromium_path() -> str | None:
    return os.environ.get("FUNES_CHROMIUM") or shutil.which("chromium")


def playwright_or_skip() -> Any:
    """Playwright's sync API, with the distribution's headless Chromium present (CI: required)."""
    executable = chromium_path()
    if executable is None or not Path(executable).exists():
        why = "headless Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    return pytest.importorskip("playwright.sync_api")


@contextmanager
def chromium_at(
    server: UIServer, width: int = 1200, *, clipboard: bool = False
) -> Iterator[tuple[Any, list[str], list[str]]]:
    """Headless Chromium (the test skipped without it, as `playwright_or_skip`) with one page
    `width`×900, allowed the clipboard when asked; closed after. Yields the page, the problems
    it reports (console and script errors) and the addresses it asked for anywhere but the
    server."""
    sync_api = playwright_or_skip()
    origin = f"http://127.0.0.1:{server.port}/"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        context = browser.new_context(viewport={"width": width, "height": 900})
        if clipboard:
            context.grant_permissions(["clipboard-read", "clipboard-write"])
        page = context.new_page()
        problems: list[str] = []
        elsewhere: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith(origin) else elsewhere.append(r.url))
        page.set_default_timeout(60_000)
        try:
            yield page, problems, elsewhere
        finally:
            browser.close()


def screenshots_folder(tmp_path: Path) -> Path:
    """Where the browser tests leave their screenshots: $FUNES_UI_SCREENSHOTS, else a tmp folder."""
    shots = Path(os.environ.get("FUNES_UI_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    return shots


@pytest.fixture
def memory(corpus: Path, tmp_path: Path) -> Path:
    """The corpus's fixture sessions plus one Claude Code session holding markup and a secret."""
    transcript = write_claude_transcript(
        tmp_path / "claude",
        tmp_path / "webshop",
        XSS_SESSION,
        [(XSS, "Noted."), (f"export GITHUB_TOKEN={SECRET}", "The token is set.")],
    )
    report = index([corpus / "funes-fixtures", transcript])
    assert report.redactions >= 1
    return tmp_path


@pytest.fixture
def server(memory: Path) -> Iterator[UIServer]:
    yield from serve(None)


@pytest.fixture
def reader_memory(corpus: Path, tmp_path: Path) -> Path:
    """Real sessions a reader opens: a 1,007-turn pi session, a Claude Code session with six
    subagents, the fixture sessions, and one session whose Markdown holds script payloads."""
    transcript = write_claude_transcript(
        tmp_path / "claude",
        tmp_path / "webshop",
        XSS_SESSION,
        [(XSS_MARKDOWN, XSS_MARKDOWN), (XSS_TERMINAL, "Done: the **cache** is fixed.")],
    )
    claude = corpus / "claude" / "daaain__claude-code-log__real_projects"
    index(
        [
            corpus / "funes-fixtures",
            corpus / "pi" / "badlogic__pi-mono__compact.jsonl",
            claude / "-experiments-worktrees",
            transcript,
        ]
    )
    return tmp_path


@pytest.fixture
def reader(reader_memory: Path) -> Iterator[UIServer]:
    yield from serve(None)


def serve(memory: str | None) -> Iterator[UIServer]:
    ui = UIServer(memory, 0)
    ui.start()
    yield ui
    ui.shutdown()
    ui.server_close()


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except HTTPError as error:
        return error.code, dict(error.headers), error.read()


def api(server: UIServer, call: str) -> tuple[int, dict]:
    status, _, body = fetch(server.url + "api/" + call)
    return status, json.loads(body)


def test_only_the_printed_url_on_loopback_gets_an_answer(server: UIServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    status, headers, body = fetch(server.url)
    assert status == 200 and b"<title>funes</title>" in body
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert headers["Referrer-Policy"] == "no-referrer"
    base = f"http://127.0.0.1:{server.port}/"
    for wrong in ("", "index.html", "not-the-token/", server.token[:-1] + "/"):
        assert fetch(base + wrong)[0] == 404
    # A page elsewhere that points a DNS name at 127.0.0.1 sends its own Host: refused.
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", f"/{server.token}/", headers={"Host": f"evil.example:{server.port}"})
    assert conn.getresponse().status == 404
    conn.close()
    assert fetch(server.url + "static/..%2Fwebui.py")[0] == 404
    status, headers, _ = fetch(server.url + "static/app.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")


def test_the_api_answers_with_recall_sessions_and_counts(server: UIServer) -> None:
    status, found = api(server, "search?q=portfolio+website&k=3")
    assert status == 200 and found["hits"][0]["harness"] == "codex"
    assert "portfolio" in found["hits"][0]["text"]
    status, listed = api(server, "sessions?harness=claude_code")
    assert status == 200 and {s["harness"] for s in listed["sessions"]} == {"claude_code"}
    status, whole = api(server, f"session?id={XSS_SESSION[:8]}")
    assert status == 200 and whole["session"]["turns"] == len(whole["turns"]) == 4
    status, overview = api(server, "overview")
    assert status == 200 and overview["redactions"] == {"github_token": 1}
    assert set(overview["agents"]) == {"claude_code", "codex", "pi"}
    assert sum(overview["agents"][a]["sessions"] for a in overview["agents"]) == 4
    assert overview["activity"] and overview["projects"]
    assert SECRET not in json.dumps(whole)  # the page shows what is stored: redacted

    assert api(server, "search?q=x&since=someday") == (
        400,
        {
            "error": "can't read the time 'someday': use a date (2026-01-31), a timestamp, "
            "or an age like 7d, 12h, 2w"
        },
    )
    assert api(server, "search?q=")[0] == 400
    status, missing = api(server, "session?id=nope")
    assert status == 404 and "not found" in missing["error"]


def test_cli_prints_the_url_first_and_serves_it(memory: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "funes.cli", "ui", "--no-open", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        status, _, body = fetch(url)
        assert status == 200 and b"static/app.js" in body
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.slow
def test_the_browser_is_handed_a_private_page_never_the_token(memory: Path, tmp_path: Path) -> None:
    """A command line is readable by every user (`ps`): the browser `funes ui` starts gets the
    path of a page only its owner can read, and that page leads a real Chromium to the UI."""
    executable = chromium_path()
    if executable is None or not Path(executable).exists():
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    argv_file = tmp_path / "browser-argv"
    browser = tmp_path / "browser"  # records the command line it was started with
    browser.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > {argv_file}.part\nmv {argv_file}.part {argv_file}\n'
    )
    browser.chmod(0o755)
    process = subprocess.Popen(
        [sys.executable, "-m", "funes.cli", "ui", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "BROWSER": str(browser)},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        token = url.rstrip("/").rsplit("/", 1)[1]
        for _ in range(300):
            if argv_file.exists():
                break
            time.sleep(0.1)
        [handed] = argv_file.read_text().split()
        assert token not in handed and handed.startswith("file://")
        page_file = Path(urllib.request.url2pathname(handed.removeprefix("file://")))
        assert page_file.stat().st_mode & 0o777 == 0o600
        assert page_file.parent.stat().st_mode & 0o777 == 0o700
        with sync_api.sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=executable)
            page = chromium.new_page()
            page.goto(handed)
            page.wait_for_url(url, timeout=30_000)  # the redirect reached the served UI
            assert page.locator("script[src='static/app.js']").count() == 1
            chromium.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert not page_file.parent.exists()  # the page goes when the server stops (kill, Ctrl-C)


def test_help_has_examples() -> None:
    from click.testing import CliRunner

    from funes.cli import main

    for command in ("ui", "doctor", "sessions", "show"):
        out = CliRunner().invoke(main, [command, "--help"])
        assert out.exit_code == 0 and "Examples:" in out.output, command


@pytest.mark.slow
def test_search_open_a_turn_browse_a_session_and_the_overview_in_chromium(
    server: UIServer, tmp_path: Path
) -> None:
    shots = screenshots_folder(tmp_path)
    with chromium_at(server) as (page, problems, elsewhere):
        page.goto(server.url)

        # Search: provenance, the passage, then the whole turn around it.
        page.fill("#q", "portfolio website for a graphic designer")
        page.select_option("#search-form select[name=harness]", "codex")
        page.click("#search-form button[type=submit]")
        first = page.locator(".hit").first
        first.wait_for()
        assert "Codex" in first.locator(".provenance").inner_text()
        assert "#search&q=portfolio" in page.url  # the query is in the address
        assert "portfolio" in first.locator(".passage").inner_text()
        first.locator(".open-turn").click()
        first.locator(".turn.asked").wait_for()
        assert first.locator(".turn").count() >= 2  # the asked turn and its neighbours
        page.screenshot(path=str(shots / "ui-search.png"), full_page=True)

        # Sessions: newest first; open one as a timeline.
        page.click("#tab-sessions")
        page.locator(".session-row").first.wait_for()
        assert page.locator(".session-row").count() == 4
        page.screenshot(path=str(shots / "ui-sessions.png"), full_page=True)
        page.locator(".session-row", has_text="portfolio website").click()
        page.locator("#timeline .turn").first.wait_for()
        # 5 turns: the 2 that hold only tool results are shown inside their calls' units.
        assert page.locator("#timeline .turn").count() == 3
        assert page.locator("#timeline .tool-unit").count() == 2
        assert "Codex" in page.locator("#session-head").inner_text()
        page.screenshot(path=str(shots / "ui-session.png"), full_page=True)

        # Transcript markup is shown as text and never runs.
        page.goto(server.url + f"#session/{XSS_SESSION}")
        page.locator("#timeline .turn").first.wait_for()
        assert XSS in page.locator("#timeline").inner_text()
        assert page.locator("#timeline img, #timeline script").count() == 0
        assert page.evaluate("window.__pwned") is None
        assert "[REDACTED:github_token]" in page.locator("#timeline").inner_text()

        # Overview: counts, the activity chart, redactions by kind.
        page.click("#tab-overview")
        page.locator("#activity svg rect.bar").first.wait_for()
        assert page.locator("#agents tbody tr").count() == 3
        assert "github_token" in page.locator("#redactions").inner_text()
        assert "no agent is bound" in page.locator("#remotes").inner_text()
        page.screenshot(path=str(shots / "ui-overview.png"), full_page=True)

    assert not problems, problems  # nothing blocked by the page's own CSP, no script errors
    assert not elsewhere, elsewhere  # nothing fetched from anywhere but this server
    for name in ("ui-search.png", "ui-sessions.png", "ui-session.png", "ui-overview.png"):
        assert (shots / name).stat().st_size > 10_000


def test_the_page_shows_what_a_bound_hub_memory_has_and_lacks(
    hub,  # noqa: F811
    server: UIServer,
) -> None:
    from funes.installers.base import InstallReport
    from funes.integrations.agents import record_install
    from funes.sync.push import push

    pushed = push("alice/team", yes=True)
    record_install("hermes", InstallReport(agent="hermes"), "alice/team")
    added = add_sessions(SESSIONS_B)
    status, data = api(server, "sync")
    assert status == 200
    (remote,) = data["remotes"]
    assert remote["uri"] == "hf://datasets/alice/team" and remote["bound_by"] == ["hermes"]
    assert remote["cached"] and remote["remote_chunks"] == pushed.remote_chunks
    assert remote["local_only"] == remote["local_chunks"] - pushed.remote_chunks
    assert remote["local_only"] >= added > 0
    # A push run by hand shows as the last push, as a background one does.
    assert remote["last_push"] is not None


def test_a_hub_memory_an_agent_only_reads_is_listed_as_read(
    hub,  # noqa: F811
    server: UIServer,
) -> None:
    from funes.installers.base import InstallReport
    from funes.integrations.agents import record_install
    from funes.sync.push import push

    push("alice/team", yes=True)
    record_install("codex", InstallReport(agent="codex"), None, reads=["alice/team"])
    status, data = api(server, "sync")
    assert status == 200
    (remote,) = data["remotes"]
    assert remote["uri"] == "hf://datasets/alice/team"
    assert remote["bound_by"] == [] and remote["read_by"] == ["codex"]
    assert remote["local_only"] == 0  # nothing of this machine's memory goes to a memory it reads


def test_the_session_list_counts_pages_and_nests_subagents(reader: UIServer) -> None:
    status, everything = api(reader, "sessions?limit=1000")
    assert status == 200
    rows = everything["sessions"]
    # Sessions of their own are counted; each subagent follows the session that started it.
    assert everything["subagents"] == 6
    assert everything["total"] == len(rows) - 6 == len({r["session_id"] for r in rows}) - 6
    at = next(i for i, r in enumerate(rows) if r["session_id"] == PARENT_SESSION)
    children = rows[at + 1 : at + 7]
    assert {c["parent"] for c in children} == {PARENT_SESSION}
    assert sorted(c["session_id"] for c in children) == sorted(rows[at]["subagents"])
    assert SUBAGENT in rows[at]["subagents"]

    # Pages of two: every session once, in the same order, the same total on each page.
    seen: list[str] = []
    for offset in range(0, everything["total"], 2):
        status, page = api(reader, f"sessions?limit=2&offset={offset}")
        assert status == 200 and page["total"] == everything["total"]
        assert len([r for r in page["sessions"] if not r["parent"]]) <= 2
        seen += [r["session_id"] for r in page["sessions"]]
    assert seen == [r["session_id"] for r in rows]

    # A whole session names its parent, or its subagents.
    status, child = api(reader, f"session?id={SUBAGENT}")
    assert status == 200 and child["session"]["parent"] == PARENT_SESSION
    status, parent = api(reader, f"session?id={PARENT_SESSION[:8]}")
    assert status == 200 and len(parent["session"]["subagents"]) == 6


def test_a_filter_nothing_matches_lists_no_sessions(server: UIServer) -> None:
    for query in ("project=doesnotexist", "since=2030-01-01", "harness=hermes"):
        assert api(server, f"sessions?{query}") == (
            200,
            {
                "sessions": [],
                "total": 0,
                "subagents": 0,
                "warmups": 0,
                "offset": 0,
                "limit": 100,
            },
        ), query


@pytest.mark.slow
def test_a_search_for_an_exact_text_in_chromium(server: UIServer) -> None:
    with chromium_at(server) as (page, problems, elsewhere):
        page.goto(server.url)
        page.fill("#q", "website")
        page.fill("#search-form input[name=has]", "GRAPHIC DESIGNER")
        page.click("#search-form button[type=submit]")
        page.locator(".hit").first.wait_for()
        passages = page.locator(".hit .passage").all_inner_texts()
        assert passages and all("graphic designer" in p.lower() for p in passages)
        assert "has=GRAPHIC" in page.url  # the filter is in the address too
        # A text no passage holds: the words still search, and the status says why.
        page.fill("#search-form input[name=has]", "graphic designers of Mars")
        page.click("#search-form button[type=submit]")
        page.locator("#search-status", has_text="no passage holds").wait_for()
        assert page.locator(".hit").count() > 0
        assert not problems and not elsewhere


def test_blocks_come_rendered_with_the_tool_name_once(reader: UIServer) -> None:
    status, whole = api(reader, f"session?id={PARENT_SESSION}")
    assert status == 200
    blocks = [b for t in whole["turns"] for b in t["blocks"]]
    calls = [b for b in blocks if b["block_type"] == "tool_use"]
    assert calls and not any(b["text"].startswith("[tool_") for b in blocks)
    assert all(b["html"].startswith("<") for b in blocks)
    results = [b for b in blocks if b["block_type"] == "tool_result"]
    assert results and all(r["tool_name"] for r in results)  # what pairs a result with its call
    status, xss = api(reader, f"session?id={XSS_SESSION}")
    html = "".join(b["html"] for t in xss["turns"] for b in t["blocks"])
    assert "<h3>Payloads</h3>" in html and "<strong>bold</strong>" in html
    assert "<img" not in html and "<script" not in html  # shown as text: &lt;img, &lt;script
    assert "href=" not in html  # no link: a javascript: target is not a link target


def test_hits_say_where_their_block_goes_on_and_how_to_get_it(
    reader_memory: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from funes.paths import local_memory_dir

    served = local_memory_dir()
    # Served from a memory that is not the one commands read by default: `get` must name it.
    monkeypatch.setenv("FUNES_HOME", str(tmp_path / "elsewhere"))
    for ui in serve(str(served)):
        # k=20: enough hits that some are later splits of long blocks whatever the ranking.
        status, found = api(ui, "search?q=compaction+summary+previous&k=20")
    assert status == 200 and found["hits"]
    for hit in found["hits"]:
        assert hit["get_command"] == (
            f"funes get --memory {shlex.quote(str(served))} {hit['session_id'][:8]} {hit['seq']}"
        )
    # A passage cut from inside a longer block says so, and starts at a whole word.
    inside = [h for h in found["hits"] if h["starts_inside"]]
    assert inside, "expected a passage from the middle of a long block"
    for hit in inside:
        shown = re.sub(r"<[^>]+>", "", hit["html"]).split()[0]
        assert re.search(rf"(^|\s){re.escape(html_lib.unescape(shown))}", hit["text"]), shown


@pytest.mark.slow
def test_a_reader_searches_follows_a_hit_into_its_session_and_its_subagents_in_chromium(
    reader: UIServer, tmp_path: Path
) -> None:
    sync_api = playwright_or_skip()  # for its `expect`
    shots = screenshots_folder(tmp_path)
    origin = f"http://127.0.0.1:{reader.port}/"
    with chromium_at(reader) as (page, problems, elsewhere):
        page.goto(reader.url)

        # A search whose answer says its passages are weak shows that note above them.
        def weak(route: Any) -> None:
            answer = route.fetch()
            data = {**answer.json(), "weak_note": "nothing scored near a real match"}
            route.fulfill(response=answer, body=json.dumps(data))

        page.route("**/api/search?*", weak)
        page.fill("#q", "zebra quantum lasagne")
        page.click("#search-form button[type=submit]")
        page.locator(".hit").first.wait_for()
        assert page.locator("#weak-note").inner_text() == "nothing scored near a real match"
        page.unroute("**/api/search?*")

        # Search: Markdown rendered, the words that matched marked, the get line.
        page.fill("#q", "previous compaction summary")
        page.click("#search-form button[type=submit]")
        # The weak search's hits stay on the page until the new answer replaces them: wait for
        # the new one (its marked words), not for any hit.
        page.locator(".hit mark.term", has_text="compaction").first.wait_for()
        first = page.locator(".hit").first
        assert page.locator("#weak-note").is_hidden()  # no note when the answer has none
        marked = {m.lower() for m in first.locator("mark.term").all_inner_texts()}
        assert {"compaction", "summary"} <= marked
        assert first.locator(".passage pre, .passage p").count() >= 1
        assert "funes get " in first.locator(".get-line").inner_text()
        page.screenshot(path=str(shots / "reader-search.png"))

        # Into its session: the 1,007-turn session opens at the hit, which is open and marked.
        with page.expect_response(lambda r: "api/session?" in r.url):
            page.locator(".hit-group .session-link").first.click()
        asked = page.locator("#timeline .turn.asked")
        asked.wait_for()
        assert page.locator("#timeline > .turn").count() > 300
        # Its two compaction summaries are labelled so, and listed in the outline.
        assert page.locator("#timeline .block.compaction .compaction-mark").count() == 2
        assert page.locator("#outline li.outline-compaction").count() == 2
        assert page.locator("#outline li.outline-prompt").count() > 50
        assert asked.locator("mark.term").count() >= 2
        assert asked.is_visible()
        page.wait_for_timeout(300)
        page.screenshot(path=str(shots / "reader-long-session.png"))

        # A tool call and its result are one unit named by the tool, never a "user" turn.
        unit = page.locator("#timeline details.tool-unit").first
        tool = unit.locator(".tool-name").text_content()
        assert tool in {"bash", "read", "edit", "write"}
        unit.locator("summary").click()
        unit.locator(".part-label").last.wait_for()  # opened: its parts are drawn
        assert unit.locator(".part-label").all_inner_texts() == ["CALL", f"{tool.upper()} OUTPUT"]
        assert page.locator("#timeline .block.final .md").is_visible()  # the final answer, open

        # Search within the session: counted, marked, stepped through.
        page.fill("#find", "compaction")
        find_status = page.locator("#find-status")
        sync_api.expect(find_status).to_contain_text(" of ", timeout=60_000)
        total = int(find_status.inner_text().split(" of ")[1])
        assert total == page.locator("#timeline mark.find").count() > 10
        page.click("#find-next")
        assert find_status.inner_text().startswith("2 of ")
        assert page.locator("mark.find.current").count() == 1

        # A link to one turn opens the session there.
        page.goto(reader.url + f"#session/{LONG_SESSION}&turn={LONG_SESSION}:8")
        page.locator("#timeline .turn.asked, #timeline .tool-unit[open]").first.wait_for()

        # Paths that end alike are told apart; a home folder is written ~.
        labels = page.evaluate(
            "(paths) => [...distinctLabels(paths).values()]",
            ["/tmp/a/home/proj", "/tmp/b/home/proj", "/home/ann/work/api", "/srv/api"],
        )
        assert labels == ["/tmp/a/home/proj", "/tmp/b/home/proj", "~/work/api", "/srv/api"]

        # Sessions: ids, totals, subagents under their parent; parent and child link both ways.
        page.click("#tab-sessions")
        page.locator(".session-row").first.wait_for()
        status = page.locator("#sessions-status").inner_text()
        assert "of " in status and "6 subagent session(s)" in status
        assert page.locator(".subagent-row").count() == 6
        assert page.locator("#sessions td.id").first.inner_text().strip()
        page.fill("#sessions-form input[name=project]", "doesnotexist")
        page.click("#sessions-form button[type=submit]")
        sync_api.expect(page.locator("#sessions-status")).to_have_text("no sessions match")
        assert page.locator(".session-row").count() == 0  # not the previous table
        page.fill("#sessions-form input[name=project]", "")
        page.click("#sessions-form button[type=submit]")
        page.locator(".subagent-row", has_text="agent-a4ca7529").click()
        page.locator(".parent-link").wait_for()
        page.screenshot(path=str(shots / "reader-subagent.png"))
        page.locator(".parent-link").click()
        page.locator(".subagent-link").first.wait_for()
        assert page.locator(".subagent-link").count() == 6
        # Each named by the task its Agent call gave it, not a bare id.
        assert "Research Claude Code plan mode" in page.locator(".subagent-link").all_inner_texts()
        assert PARENT_SESSION in page.locator("#session-head").inner_text()

        # Markdown payloads render as text and never run.
        page.goto(reader.url + f"#session/{XSS_SESSION}")
        page.locator("#timeline .turn").first.wait_for()
        timeline = page.locator("#timeline")
        assert timeline.locator("h3", has_text="Payloads").count() == 2
        assert "<script>window.__pwned=6</script>" in timeline.inner_text()
        assert timeline.locator("pre.terminal .ansi-fg1", has_text="<img src=x").count() == 1
        assert timeline.locator("img, script, iframe, svg").count() == 0
        hrefs = timeline.locator("a[href]").evaluate_all("(links) => links.map((a) => a.href)")
        assert not [h for h in hrefs if not h.startswith(("http:", "https:", origin))], hrefs
        page.locator("#timeline summary").evaluate_all("(all) => all.forEach((s) => s.click())")
        assert page.evaluate("window.__pwned") is None

        page.click("#tab-overview")
        page.locator("#activity svg rect.bar").first.wait_for()
        page.screenshot(path=str(shots / "reader-overview.png"), full_page=True)

    assert not problems, problems
    assert not elsewhere, elsewhere
    for name in ("search", "long-session", "subagent", "overview"):
        assert (shots / f"reader-{name}.png").stat().st_size > 10_000

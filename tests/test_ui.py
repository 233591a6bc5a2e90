"""`funes ui`: a loopback-only, token-guarded web page over the memory, driven in a real headless
Chromium (the distribution's package) through Playwright: search, open a turn, browse sessions,
the overview, and transcript text that never runs as markup."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.error import HTTPError

import pytest
from agent_harness import write_claude_transcript
from sync_fixtures import SESSIONS_B, add_sessions, hub  # noqa: F401  (hub is a fixture)

from funes.index.indexer import index
from funes.inspect.webui import UIServer

XSS_SESSION = "0a1b2c3d-0000-4000-8000-00000000f00d"
XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> render me as text'
# A GitHub token the indexer must redact: the overview counts its marker by kind.
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def chromium_path() -> str | None:
    return os.environ.get("FUNES_CHROMIUM") or shutil.which("chromium")


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
    ui = UIServer(None, 0)
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
    executable = chromium_path()
    if executable is None or not Path(executable).exists():
        why = "headless Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    sync_api = pytest.importorskip("playwright.sync_api")
    shots = Path(os.environ.get("FUNES_UI_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    origin = f"http://127.0.0.1:{server.port}/"

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        problems: list[str] = []
        elsewhere: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith(origin) else elsewhere.append(r.url))
        page.set_default_timeout(60_000)
        page.goto(server.url)

        # Search: provenance, the passage, then the whole turn around it.
        page.fill("#q", "portfolio website for a graphic designer")
        page.select_option("#search-form select[name=harness]", "codex")
        page.click("#search-form button[type=submit]")
        first = page.locator(".hit").first
        first.wait_for()
        assert "codex" in first.locator(".provenance").inner_text()
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
        assert page.locator("#timeline .turn").count() == 5
        assert "codex" in page.locator("#session-head").inner_text()
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
        browser.close()

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

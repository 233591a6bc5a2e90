"""The page on real sessions of the corpus, in Chromium: each tool rendered as people read it
(an Edit as a diff, a TodoWrite checklist, a Task's report as Markdown linked to the subagent's
transcript), pick-up actions on the session page, the session list without `Warmup` or slash
titles at 800 px, search results grouped by session with the query in the address. Screenshots
go to $FUNES_UI_SCREENSHOTS (else a temporary folder)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_harness import write_claude_transcript
from test_ui import api, chromium_at, playwright_or_skip, screenshots_folder, serve

from funes.index.indexer import index
from funes.inspect.webui import UIServer

REAL = "claude/daaain__claude-code-log__real_projects"
PACKAGING = "cb2e607c-c758-415a-8b45-c49e4631906a"  # Edit, TodoWrite, a Task with its subagent
SUBAGENT = "agent-ea02459f"
TOKENIZER = "f852ad25-1024-47da-964e-5eaae5bd6e6a"  # `/clear` first, then a real request
LONG = "0a1b2c3d-0000-4000-8000-0000000010a6"
LONG_ANSWER = "## Deep analysis\n\n" + "\n\n".join(
    f"Finding {n}: the renderer re-reads the whole session on every keypress." for n in range(160)
)


@pytest.fixture
def site(corpus: Path, tmp_path: Path) -> Iterator[UIServer]:
    long = write_claude_transcript(
        tmp_path / "claude", tmp_path / "reader", LONG, [("Analyse the renderer.", LONG_ANSWER)]
    )
    real = corpus / REAL
    index(
        [
            real / "-Users-dain-workspace-coderabbit-review-helper",
            real / "-Users-dain-workspace-danieldemmel-me-next",
            long,
        ]
    )
    yield from serve(None)


def test_each_tool_is_rendered_and_the_session_can_be_picked_up(
    site: UIServer, tmp_path: Path
) -> None:
    shots = screenshots_folder(tmp_path)
    with chromium_at(site, clipboard=True) as (page, problems, _):
        page.goto(site.url + f"#session/{PACKAGING}")
        page.locator("#timeline .turn").first.wait_for()

        # An Edit is a diff: removed lines red, added lines green, the file named once.
        edit = page.locator("#timeline details.tool-unit", has_text="Edit").first
        edit.locator("summary").click()
        diff = edit.locator("pre.diff")
        diff.wait_for()
        assert "setuptools" in diff.locator(".diff-del").first.inner_text()
        assert "hatchling" in diff.locator(".diff-add").first.inner_text()
        assert "old_string" not in edit.inner_text()
        assert "→" not in edit.locator(".part-label ~ .raw").last.inner_text()  # no `  12→`
        edit.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "tools-edit-diff.png"))

        # A TodoWrite is a checklist.
        todo = page.locator("#timeline details.tool-unit", has_text="TodoWrite").first
        todo.locator("summary").click()
        checklist = todo.locator("ul.checklist")
        checklist.wait_for()
        assert checklist.locator("li").count() == 3
        assert (
            checklist.locator("li.step-in_progress")
            .inner_text()
            .endswith("Read current pyproject.toml configuration")
        )
        todo.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "tools-todo-checklist.png"))

        # A Task: named by its task, its report rendered as Markdown, linked to the transcript.
        task = page.locator("#timeline details.subagent-unit").first
        assert "Explore project structure for packaging" in task.locator("summary").inner_text()
        task.locator("summary").click()
        report = task.locator(".folded-body .md").last
        report.wait_for()
        assert report.locator("h1, h2, h3, ul, ol, strong").count() > 0  # Markdown, not raw
        task.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "tools-task-report.png"))

        # Harness wrappers read as context, not tags.
        first_turn = page.locator("#timeline .turn").first
        assert "<ide_selection>" not in first_turn.inner_text()
        assert "SELECTED IN THE IDE" in first_turn.inner_text().upper()

        # The outline lists the prompts; the type filters hide the tools.
        outline = page.locator("#outline li.outline-prompt")
        assert outline.count() >= 4
        assert "install as a library" in outline.first.inner_text()
        page.locator("#type-filters input[value=tools]").uncheck()
        assert page.locator("#timeline .tool-unit").first.is_hidden()
        page.locator("#type-filters input[value=tools]").check()

        # "prompt ▸" steps from prompt to prompt (the first one is on screen at the top).
        page.evaluate("window.scrollTo(0, 0)")
        page.click("#next-prompt")
        page.wait_for_timeout(400)
        second = page.locator("#timeline .turn", has_text="Please add these in").first
        box = second.bounding_box()
        assert box is not None and 0 <= box["y"] < 250, box
        page.click("#prev-prompt")
        page.wait_for_timeout(400)
        box = page.locator("#timeline .turn.role-user").first.bounding_box()
        assert box is not None and 0 <= box["y"] < 250, box

        # Resume, catch-up and copy, on the session page.
        page.click(".resume-button")
        command = page.locator(".resume-command")
        command.wait_for()
        assert f"claude --resume {PACKAGING}" in command.inner_text()
        page.locator(".resume-plan button").click()
        assert page.evaluate("navigator.clipboard.readText()") == command.inner_text()
        page.screenshot(path=str(shots / "session-resume.png"))
        page.click(".catchup-button")
        catchup = page.locator(".catchup-text")
        catchup.wait_for()
        assert catchup.inner_text().startswith(f"funes catchup: session {PACKAGING}")
        assert "│ Let's update readme with the working reinstall" in catchup.inner_text()

        # The Task's link opens the subagent's transcript, which names its parent and task.
        with page.expect_response(lambda r: "api/session?" in r.url):
            task.locator(".subagent-transcript").click()
        page.locator(".parent-link").wait_for()
        head = page.locator("#session-head").inner_text()
        assert "task: Explore project structure for packaging" in head
        assert SUBAGENT in page.url

        # A link to a turn deep in the session, opened fresh, lands on that turn.
        deep = "5dc876a5-ccdd-4b42-b599-eb63ad2e513c"
        page.goto("about:blank")
        page.goto(site.url + f"#session/{PACKAGING}&turn={deep}")
        asked = page.locator("#timeline .turn.asked")
        asked.wait_for()
        page.wait_for_timeout(1200)
        box = asked.bounding_box()
        assert box is not None and 0 <= box["y"] < 300, box

        # A long final answer opens at its start, and "show more" opens the rest.
        page.goto(site.url + f"#session/{LONG}")
        final = page.locator("#timeline .block.final")
        final.wait_for()
        assert final.locator(".md.clamped").is_visible()
        assert "Deep analysis" in final.inner_text()
        final.locator(".show-more").click()
        assert final.locator(".md.clamped").count() == 0
        assert "Finding 159" in final.inner_text()
    assert not problems, problems


def test_the_session_list_and_search_read_as_people_expect(site: UIServer, tmp_path: Path) -> None:
    sync_api = playwright_or_skip()  # for its `expect`
    shots = screenshots_folder(tmp_path)
    status, listed = api(site, "sessions?limit=500")
    titles = [s["first_prompt"] for s in listed["sessions"]]
    assert status == 200 and listed["warmups"] >= 16
    assert not any(t == "Warmup" or t.startswith(("/", "<")) for t in titles)
    with chromium_at(site, 800, clipboard=True) as (page, problems, _):
        # The landing page lists recent sessions before anything is searched.
        page.goto(site.url)
        page.locator("#recent-list li a").first.wait_for()
        assert page.locator("#recent-list li").count() >= 5

        page.goto(site.url + "#sessions")
        page.locator(".session-row").first.wait_for()
        row = page.locator(".session-row", has=page.locator(f"[title='{TOKENIZER}']"))
        assert (
            row.locator("a.session-title")
            .inner_text()
            .startswith("Can you please read @public/tokenizer.css")
        )
        assert row.locator("a.session-title").get_attribute("href") == f"#session/{TOKENIZER}"
        assert page.locator(".stray-row").count() > 0  # subagents whose parent is not here
        assert "Warmup" not in page.locator("#sessions").inner_text()
        # It fits 800 px: no sideways scroll, the title column is not cut away.
        assert page.evaluate("document.documentElement.scrollWidth") <= 800
        title_box = row.locator("a.session-title").bounding_box()
        assert title_box is not None and title_box["x"] + 40 < 800
        page.screenshot(path=str(shots / "sessions-800px.png"), full_page=True)
        # The text filter.
        page.fill("#sessions-q", "tokenizer.css")
        page.click("#sessions-form button[type=submit]")
        sync_api.expect(page.locator(".session-row")).to_have_count(2)

        # The overview's agents and projects open their sessions.
        page.goto(site.url + "#overview")
        page.locator("#agents a.overview-link").first.click()
        page.locator(".session-row").first.wait_for()
        assert page.url.endswith("#sessions&harness=claude_code")
        assert page.input_value("#sessions-form select[name=harness]") == "claude_code"
        page.goto(site.url + "#overview")
        page.locator("#activity rect.bar").first.click()
        page.locator(".session-row").first.wait_for()
        assert "#sessions&since=" in page.url
        assert page.input_value("#sessions-form select[name=harness]") == ""  # not kept
        since = page.input_value("#sessions-form input[name=since]")
        starts = page.locator(".session-row:not(.subagent-row) td.when").all_inner_texts()
        assert starts and all(start.replace("\n", " ") >= since for start in starts)

        # Search: the query in the address, hits grouped by session.
        page.goto(site.url + "#search&q=hatchling%20build%20backend")
        page.locator(".hit-group").first.wait_for()
        groups = page.locator(".hit-group .session-link").all_inner_texts()
        assert len(groups) == len(set(groups))  # one group per session
        assert page.input_value("#q") == "hatchling build backend"
        assert not re.search(r"score \d", page.locator("#hits").inner_text())  # no raw scores
        page.screenshot(path=str(shots / "search-grouped.png"), full_page=True)
        # Into a session and Back: the results, where they were left.
        link = page.locator(".hit-group .session-link").nth(1)
        link.scroll_into_view_if_needed()
        page.wait_for_timeout(200)
        left_at = page.evaluate("window.scrollY")
        with page.expect_response(lambda r: "api/session?" in r.url):
            link.click()
        page.locator("#timeline .turn").first.wait_for()
        page.go_back()
        page.locator("#view-search").wait_for()
        page.wait_for_timeout(300)
        assert left_at > 500 and abs(page.evaluate("window.scrollY") - left_at) < 50
    assert not problems, problems

"""`funes ui` asks the memory's resident service, as `funes recall` and `funes mcp` do: the
page's answers are the in-process ones (scores to 3 places), its own process never loads the memory,
a killed service is replaced, and a service that cannot start leaves the page in-process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_resident import mapped
from test_ui import chromium_path, fetch, playwright_or_skip
from test_warm_recall import alive, wait_for_service, warm_home  # noqa: F401 (a fixture)

from funes.integrations import warm

pytestmark = pytest.mark.slow

CALLS = [
    "search?q=why+did+we+drop+redis&k=3",
    "search?q=backup&harness=codex",
    "search?q=x&since=someday",  # 400, the filter's own words
    "search?q=",
    "sessions",
    "session?id=s-shop-0001",
    "session?id=nope",  # 404
    "turn?session=s-shop-0001&turn=u2&window=1",
    "overview",
    "catchup?id=s-shop-0001",
    "nosuchcall",
]


@pytest.fixture
def resident(warm_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    monkeypatch.setenv("FUNES_RERANKER", "none")
    monkeypatch.setenv("FUNES_WARM_IDLE_S", "60")
    return warm_home


@contextmanager
def page_server(**env: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`funes ui --no-open` running: (its URL, its process)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "funes.cli", "ui", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), process
    finally:
        process.terminate()
        process.wait(timeout=30)


def answers(url: str) -> list[tuple[int, object]]:
    """Each call's status and body, a hit's score rounded: recency weighs a hit by its age
    *now*, so the same search a few seconds later can move the sixth decimal."""
    return [(status, settled(body)) for status, _, body in (fetch(url + "api/" + c) for c in CALLS)]


def settled(body: bytes) -> object:
    try:
        answer = json.loads(body)
    except ValueError:
        return body
    for hit in answer.get("hits", []) if isinstance(answer, dict) else []:
        hit["score"] = round(hit["score"], 3)
    return answer


def test_the_page_asks_the_resident_service_and_answers_as_in_process(resident: Path) -> None:
    with page_server(FUNES_WARM_IDLE_S="0") as (url, _):
        expected = answers(url)
    assert [status for status, _ in expected] == [
        200,
        200,
        400,
        400,
        200,
        200,
        404,
        200,
        200,
        200,
        404,
    ]

    with page_server() as (url, page):
        assert answers(url) == expected
        info = warm.service_info()
        assert info is not None
        (caller,) = [c for c in info["callers"] if c["client"] == "ui"]
        assert caller["pid"] == page.pid and caller["calls"] == len(CALLS)
        # The page's own process never opened the memory.
        maps = mapped(page.pid)
        assert "lancedb" not in maps and "numpy" not in maps

        # A killed service is replaced by the next call, which loses nothing.
        killed = info["pid"]
        os.kill(killed, signal.SIGKILL)
        while alive(killed):
            time.sleep(0.05)
        assert answers(url)[:2] == expected[:2]
        assert wait_for_service(resident) != killed
        assert "numpy" not in mapped(page.pid)


def test_a_page_whose_service_cannot_start_works_in_process(resident: Path) -> None:
    with page_server(FUNES_WARM_IDLE_S="0") as (url, _):
        expected = answers(url)[:2]
    (resident / "run").write_text("not a folder")  # no socket can live here
    with page_server() as (url, page):
        assert answers(url)[:2] == expected
        page.terminate()
        _, stderr = page.communicate(timeout=30)
    assert "no resident service answered" in stderr and "works in-process" in stderr


def test_a_search_in_chromium_is_answered_by_the_service(resident: Path) -> None:
    sync_api = playwright_or_skip()
    with page_server() as (url, page), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        tab = browser.new_page()
        tab.set_default_timeout(60_000)
        tab.goto(url)
        tab.fill("#q", "why did we drop the redis cache")
        tab.click("#search-form button[type=submit]")
        first = tab.locator(".hit").first
        first.wait_for()
        assert "stale prices" in first.locator(".passage").inner_text()
        browser.close()
        info = warm.service_info()
        assert info is not None
        assert any(c["client"] == "ui" and c["pid"] == page.pid for c in info["callers"])

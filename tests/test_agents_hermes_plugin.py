"""The Hermes plugin's side of the hook contract, run without Hermes: what it hands `funes hook`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from funes.integrations.hook import queue_dir, spool_entry
from funes.plugins import hermes as plugin

FUNES_BIN = Path(sys.executable).with_name("funes")


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hermes"
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("FUNES_BIN", str(FUNES_BIN))
    monkeypatch.chdir(tmp_path)
    return home


def test_the_hook_payload_names_the_session_and_its_database(hermes_home: Path, tmp_path) -> None:
    # What `funes hook hermes` makes of the payload (the end-to-end run in test_agents_hermes.py
    # proves the plugin delivers it; here no detached worker is started).
    payload = plugin.hook_payload(
        "20260102_030405_abcdef", "on_session_end", completed=True, interrupted=False, model="m"
    )
    entry = spool_entry("hermes", payload)

    assert entry["agent"] == "hermes"
    assert entry["session_id"] == "20260102_030405_abcdef"
    assert entry["transcript_path"] == str(hermes_home / "state.db")
    assert entry["cwd"] == str(tmp_path)


def test_a_hook_without_a_session_queues_nothing(hermes_home: Path) -> None:
    plugin.on_session_end(session_id="")
    assert not list(queue_dir().glob("*.json"))


def test_a_missing_funes_never_raises_into_hermes(hermes_home: Path, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_BIN", str(hermes_home / "no-such-funes"))
    plugin.on_session_end(session_id="20260102_030405_abcdef")
    assert plugin.recall({"query": "anything"}).startswith("funes_recall error:")


def test_the_plugin_reads_a_place_its_course_and_just_the_lines_asked(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Hermes tools over a real memory: `funes_get` by seq with `grep`, `funes_timeline`
    around it; ids that begin with `-` stay ids."""
    from recall_fixtures import build_memory, sample_turns

    build_memory(sample_turns())
    monkeypatch.setenv("FUNES_RERANKER", "none")
    registered: list[str] = []

    class Context:
        def register_tool(self, name: str, **_: object) -> None:
            registered.append(name)

        def register_hook(self, *_: object) -> None:
            pass

    plugin.register(Context())
    assert registered == ["funes_recall", "funes_get", "funes_timeline"]
    got = plugin.get({"session_id": "s-shop-0", "turn_uuid": "1", "grep": "postgres"})
    assert "  @ line 1" in got and "straight from postgres" in got
    wider = plugin.get(
        {"session_id": "s-shop-0", "turn_uuid": "1", "grep": "postgres", "context": 3}
    )
    assert "straight from postgres" in wider and not wider.startswith("funes_get error:")
    too_wide = plugin.get({"session_id": "s-shop-0", "turn_uuid": "1", "grep": "x", "context": 99})
    assert too_wide.startswith("funes_get error:") and "--context" in too_wide
    course = plugin.timeline({"session_id": "s-shop-0", "turn": "1"})
    assert course.startswith("funes timeline: session s-shop-0") and "← asked" in course
    holding = plugin.timeline({"session_id": "s-shop-0", "has": "postgres"})
    assert " step(s) hold postgres." in holding.splitlines()[0] and "seq1 " in holding
    exact = plugin.recall({"query": "cache", "has": "STRAIGHT FROM POSTGRES"})
    assert "1 place(s)" in exact.splitlines()[0] and "straight from postgres" in exact
    dashed = plugin.get({"session_id": "--version", "turn_uuid": "1"})
    assert dashed.startswith("funes_get error:") and "session --version not found" in dashed

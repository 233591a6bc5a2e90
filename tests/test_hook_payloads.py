"""What opencode's plugin and Copilot CLI's command hooks hand `funes hook`, and which transcript
the worker reads for each."""

from __future__ import annotations

from pathlib import Path

from funes.integrations.hook import spool_entry
from funes.integrations.hook_worker import resolve_transcript
from funes.paths import copilot_home, opencode_db


def test_copilot_agent_stop_names_its_events_file_in_camel_case() -> None:
    events = "/home/u/.copilot/session-state/2702528f/events.jsonl"
    payload = {"sessionId": "2702528f", "transcriptPath": events, "stopReason": "end_turn"}

    entry = spool_entry("copilot", payload)

    assert (entry["transcript_path"], entry["session_id"]) == (events, "2702528f")
    assert resolve_transcript(entry) == Path(events)


def test_copilot_session_end_names_only_the_session_whose_folder_holds_the_file() -> None:
    entry = spool_entry("copilot", {"sessionId": "2702528f", "reason": "complete"})

    assert entry["transcript_path"] is None
    assert resolve_transcript(entry) == copilot_home() / "session-state/2702528f/events.jsonl"


def test_opencode_session_idle_names_the_database() -> None:
    payload = {"hook_event_name": "session.idle", "session_id": "ses_1", "cwd": "/p"}

    assert resolve_transcript(spool_entry("opencode", payload)) == opencode_db()
    with_path = spool_entry("opencode", payload | {"transcript_path": "/d/opencode.db"})
    assert resolve_transcript(with_path) == Path("/d/opencode.db")

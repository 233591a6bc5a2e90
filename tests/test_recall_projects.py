"""A question that names a project (its working directory's folder) ranks that project's
passages above another project's that share more of its other words."""

from __future__ import annotations

import pytest
from recall_fixtures import build_memory, turn

from funes.retrieve import recall
from funes.retrieve.projects import folder_name, names


@pytest.fixture(autouse=True)
def first_pass_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")


def test_the_named_projects_passage_ranks_first() -> None:
    build_memory(
        [
            turn("s-rec-0001", "r1", 0, "The dev server port is 5173 now.",
                 role="assistant", workdir="/Users/dain/workspace/JSSoundRecorder"),
            turn("s-shop-0002", "p1", 0, "The dev server port moved: the server port is 8080.",
                 role="assistant", workdir="/home/dev/shop"),
        ]
    )  # fmt: skip
    hits = recall("which dev server port did the recorder use", k=2).hits
    assert [h.turn_uuid for h in hits] == ["r1", "p1"]
    # Unnamed, the passage with more of the question's words leads.
    assert recall("which dev server port did we use", k=1).hits[0].turn_uuid == "p1"


def test_a_generic_word_does_not_name_a_project() -> None:
    folder = folder_name("/Users/dain/workspace/claude-code-log")
    assert folder == "claudecodelog"
    assert not names(["what", "code", "did", "we", "log"], folder)
    assert names(["the", "claude", "code", "log", "repo"], folder)
    assert names(["the", "recorder"], folder_name("/Users/dain/workspace/JSSoundRecorder"))

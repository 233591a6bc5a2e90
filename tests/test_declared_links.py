"""A repository can declare only a memory inside itself: a symbolic link it commits (the folder,
or a file inside it) does not lead the agent to another memory on the user's disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from sync_fixtures import SESSIONS_B, add_sessions

from funes.project.declared import DeclarationError, find_declared
from funes.project.multi import recall_many

PRIVATE = {"sess-private": ["The AARDVARKLEDGER payroll export lives on the shared drive."]}


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")


def _checkout(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    return root


def test_a_linked_memory_folder_leading_out_of_the_repository_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "home" / ".funes" / "memory"  # the user's own memory
    add_sessions(PRIVATE, elsewhere)
    repo = _checkout(tmp_path / "cloned")
    (repo / "funes.toml").write_text('memory = "team-memory"\n')
    (repo / "team-memory").symlink_to(elsewhere)

    with pytest.raises(DeclarationError, match="outside the repository"):
        find_declared(repo)
    add_sessions(SESSIONS_B)  # this machine's memory
    # Recall in the checkout ignores the declaration, says so, and shows nothing of it.
    monkeypatch.chdir(repo)
    result = recall_many([], "payroll export AARDVARKLEDGER", second_pass=False, neighbors=0)
    assert not any("AARDVARKLEDGER" in hit.text for hit in result.hits)
    assert any("repository memory ignored" in note for note in result.notes)


def test_a_memory_folder_holding_a_link_out_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "home" / ".funes" / "memory"
    add_sessions(PRIVATE, elsewhere)
    repo = _checkout(tmp_path / "cloned")
    (repo / "funes.toml").write_text('memory = "team-memory"\n')
    add_sessions(SESSIONS_B, repo / "team-memory")
    data = repo / "team-memory" / "chunks.lance" / "data"
    linked = data / "stolen.lance"
    linked.symlink_to(next((elsewhere / "chunks.lance" / "data").iterdir()))

    with pytest.raises(DeclarationError, match="symbolic link"):
        find_declared(repo)


def test_a_link_that_stays_inside_the_repository_is_followed(tmp_path: Path) -> None:
    repo = _checkout(tmp_path / "cloned")
    add_sessions(SESSIONS_B, repo / "memory" / "project")
    (repo / "funes.toml").write_text('memory = "current"\n')
    (repo / "current").symlink_to(repo / "memory" / "project")

    declared = find_declared(repo)
    assert declared is not None
    assert declared.memories == (str((repo / "memory" / "project").resolve()),)

"""A full disk is called a full disk: the message says so, roughly how much room is needed and
that nothing was lost, never advises rebuilding, and the memory is indeed whole afterwards.
The disk is a real one: a small tmpfs (skipped where mounting is not permitted)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from trust_fixtures import funes, funes_home_on_a_small_disk

from funes.index.store import ChunkStore

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with funes_home_on_a_small_disk(tmp_path / "small-disk", "3m", monkeypatch) as mount:
        yield mount


def test_a_full_disk_is_named_with_the_room_needed_and_nothing_is_lost(small_disk: Path) -> None:
    first = funes("index", str(CORPUS / "funes-fixtures"))
    assert first.returncode == 0, first.stderr
    rows = ChunkStore.open().count()

    full = funes("index", str(CORPUS / "claude"))  # about 6 MB of rows on a 3 MB disk
    assert full.returncode == 1
    [error] = [line for line in full.stderr.splitlines() if line.startswith("Error: ")]
    assert "is full" in error and "nothing was lost" in error, error
    assert "more" in error and "MB" in error  # how much room, roughly
    for wrong in ("damaged", "rebuild", "aside", "/rustc/", ".cargo", ".rs:", "Traceback"):
        assert wrong not in full.stderr, full.stderr

    # Nothing was lost: every row is there and readable, and recall answers.
    assert ChunkStore.open().count() == rows
    doctor = {c["name"]: c for c in json.loads(funes("doctor", "--json").stdout)["checks"]}
    assert doctor["stored data"]["ok"], doctor["stored data"]
    recalled = funes("recall", "redis", "--format", "agent")
    assert recalled.returncode == 0 and "place(s)" in recalled.stdout

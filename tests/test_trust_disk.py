"""A full disk is called a full disk: the message says so, roughly how much room is needed and
that nothing was lost, never advises rebuilding, and the memory is indeed whole afterwards;
`doctor --fix` that cannot repair says the disk is full (never a Rust source path) and does
not advise itself again (trust, round two: issue 31); a refused forget leaves no empty file
behind. The disk is a real one: a small tmpfs (skipped where mounting is not permitted)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from trust_fixtures import funes, funes_home_on_a_small_disk

from funes.index.store import ChunkStore
from funes.paths import funes_home, local_memory_dir

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with funes_home_on_a_small_disk(tmp_path / "small-disk", "3m", monkeypatch) as mount:
        yield mount


def fill(disk: Path) -> None:
    """Take every free byte of `disk`."""
    with (disk / "filler").open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass


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


def test_doctor_fix_on_a_full_disk_says_so_and_does_not_advise_itself(small_disk: Path) -> None:
    assert funes("index", str(CORPUS / "funes-fixtures")).returncode == 0
    [text_index] = [
        i.index_uuid for i in ChunkStore.open().table.list_indices() if i.columns == ["text"]
    ]
    shutil.rmtree(local_memory_dir() / "chunks.lance" / "_indices" / text_index)
    fill(small_disk)

    fixed = funes("doctor", "--fix")
    out = fixed.stdout + fixed.stderr

    assert fixed.returncode == 1
    for wrong in ("/rustc/", ".cargo", ".rs:", "Traceback"):
        assert wrong not in out, out
    assert "is full" in out and "nothing was lost" in out, out
    assert "`funes doctor --fix` repairs" not in out, out
    checks = json.loads(funes("doctor", "--fix", "--json").stdout)["checks"]
    for check in checks:
        if not check["ok"] and "is full" in check["detail"]:
            assert "doctor --fix" not in check["fix"], check


def test_a_forget_refused_by_a_full_disk_leaves_no_empty_file(small_disk: Path) -> None:
    assert funes("index", str(CORPUS / "funes-fixtures")).returncode == 0
    session = ChunkStore.open().scan(["session_id"]).column("session_id").to_pylist()[0]
    (funes_home() / "forgotten").mkdir(exist_ok=True)
    fill(small_disk)

    refused = funes("forget", "--session", session, "--yes")

    assert refused.returncode != 0
    assert list((funes_home() / "forgotten").iterdir()) == []


def test_rows_stored_before_the_disk_filled_are_recorded_and_the_room_asked_is_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that appended a batch and then found the disk full records what it stored (the
    next run does not read it again), and asks for room enough: given that much more, the
    same command finishes."""
    from funes.index.state import IndexState

    with funes_home_on_a_small_disk(tmp_path / "disk", "5500k", monkeypatch) as mount:
        assert funes("index", str(CORPUS / "funes-fixtures")).returncode == 0
        full = funes("index", str(CORPUS / "claude"))
        assert full.returncode == 1 and "is full" in full.stderr, full.stderr
        stored = set(ChunkStore.open().scan(["session_id"]).column("session_id").to_pylist())
        recorded = {s for unit in IndexState.load().units.values() for s in unit.sessions}
        assert stored <= recorded, sorted(stored - recorded)[:5]

        amount, unit = full.stderr.split("needs about ")[1].split(" more")[0].split()
        asked = float(amount) * {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}[unit]
        size = int(5500 * 1024 + asked)
        grown = subprocess.run(
            ["mount", "-o", f"remount,size={size}", str(mount)], capture_output=True
        )
        assert grown.returncode == 0, grown.stderr
        again = funes("index", str(CORPUS / "claude"))
        assert again.returncode == 0, again.stderr


def test_a_lost_data_file_costs_only_its_own_rows_and_doctor_fix_salvages_the_rest(
    tmp_path: Path,
) -> None:
    """Two index runs, two data files; the first file is lost, and the transcripts of the
    second run are gone too. `doctor --fix` keeps every row that reads (the second run's,
    whose transcripts no rebuild could bring back), and `funes index` restores the first's."""
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(CORPUS / "funes-fixtures", first)
    shutil.copytree(CORPUS / "generated" / "codex", second)
    assert funes("index", str(first)).returncode == 0
    before_second = ChunkStore.open().count()
    assert funes("index", str(second)).returncode == 0
    total = ChunkStore.open().count()
    data = sorted((local_memory_dir() / "chunks.lance" / "data").glob("*.lance"), key=_mtime)
    assert len(data) == 2, data
    data[0].unlink()  # the first run's rows
    shutil.rmtree(second)  # the second run's transcripts are gone

    broken = funes("doctor")
    assert "aside and rebuild" not in broken.stdout, broken.stdout
    stored = [line for line in broken.stdout.splitlines() if "stored data" in line]
    assert stored and stored[0].startswith("FAIL"), broken.stdout

    fixed = funes("doctor", "--fix")
    assert "kept the" in fixed.stdout and "/rustc/" not in fixed.stdout, fixed.stdout
    assert [line for line in fixed.stdout.splitlines() if line.startswith("ok   stored data")]
    assert ChunkStore.open().count() == total - before_second  # the second run's rows, kept
    assert list(local_memory_dir().parent.glob("memory.damaged-*/chunks.lance"))

    again = funes("index", str(first))
    assert again.returncode == 0, again.stderr
    assert ChunkStore.open().count() == total
    recalled = funes("recall", "apply_patch", "--format", "agent")
    assert recalled.returncode == 0 and "failed" not in recalled.stdout + recalled.stderr


def _mtime(path: Path) -> float:
    return path.stat().st_mtime

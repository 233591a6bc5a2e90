"""`funes doctor` sees what recall sees: every way a memory's files get damaged here is made
for real on a real Lance memory, and recall's trouble (a failure, or a note that a search leg
failed) and doctor's verdict always agree. `--fix` rebuilds lost indexes from the rows and falls
back to an earlier version when the newest manifest is damaged; `funes index` never exits 0 on
a memory it cannot read."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from trust_fixtures import funes

from funes.cli import main
from funes.index.store import ChunkStore
from funes.paths import local_memory_dir

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def table_dir() -> Path:
    return local_memory_dir() / "chunks.lance"


def index_dir(column: str) -> Path:
    [uuid] = [i.index_uuid for i in ChunkStore.open().table.list_indices() if i.columns == [column]]
    return table_dir() / "_indices" / uuid


def truncate_fulltext() -> None:
    for part in index_dir("text").iterdir():
        with part.open("r+b") as handle:
            handle.truncate(10)


def delete_fulltext() -> None:
    shutil.rmtree(index_dir("text"))


def delete_every_index() -> None:
    shutil.rmtree(table_dir() / "_indices")


def truncate_newest_manifest() -> None:
    # Lance names a version u64::MAX - version: the newest sorts first.
    newest = sorted((table_dir() / "_versions").glob("*.manifest"))[0]
    assert len(list(newest.parent.glob("*.manifest"))) > 1  # an earlier version is kept
    with newest.open("r+b") as handle:
        handle.truncate(100)


def cli(*args: str) -> Result:
    """The real CLI in-process (a fresh process per call costs seconds here)."""
    return CliRunner().invoke(main, list(args))


def recall_trouble() -> str:
    """What recall says is wrong ("" when nothing): its error, or a note that a leg failed."""
    run = cli("recall", "apply patch", "--format", "agent")
    if run.exit_code != 0:
        return run.output.strip() or "failed"
    notes = [line for line in run.output.splitlines() if line.startswith("note:")]
    return "\n".join(n for n in notes if "failed" in n)


def doctor(*args: str) -> tuple[int, dict]:
    run = cli("doctor", "--json", *args)
    return run.exit_code, {c["name"]: c for c in json.loads(run.output)["checks"]}


def memory_checks(checks: dict) -> dict:
    local = ("memory", "stored data", "full-text index", "vector index", "indexes")
    return {name: check for name, check in checks.items() if name in local}


@pytest.fixture
def memory() -> int:
    """A real memory of a few hundred chunks, with every index built; its row count."""
    built = funes("index", str(CORPUS / "funes-fixtures"), str(CORPUS / "codex"))
    assert built.returncode == 0, built.stderr
    assert recall_trouble() == ""
    return ChunkStore.open().count()


@pytest.mark.parametrize(
    "damage",
    [truncate_fulltext, delete_fulltext, delete_every_index, truncate_newest_manifest],
    ids=lambda d: d.__name__,
)
def test_doctor_agrees_with_recall_and_fix_repairs(memory: int, damage: Callable[[], None]) -> None:
    damage()
    trouble = recall_trouble()
    assert trouble, "recall must not answer from a damaged memory without saying so"
    assert "/rustc/" not in trouble and ".cargo" not in trouble
    code, checks = doctor()
    failing = {n: c for n, c in memory_checks(checks).items() if c["status"] == "fail"}
    assert code == 1 and failing, checks
    assert all("--fix" in c["fix"] for c in failing.values()), failing

    fixed = memory_checks(doctor("--fix")[1])
    assert all(c["ok"] for c in fixed.values()), fixed
    assert recall_trouble() == ""
    if ChunkStore.open().count() < memory:  # a set-aside version held rows: indexing restores them
        again = funes("index", str(CORPUS / "funes-fixtures"), str(CORPUS / "codex"))
        assert again.returncode == 0, again.stderr
    assert ChunkStore.open().count() == memory


def test_index_fails_on_a_data_file_it_cannot_read_and_doctor_agrees(memory: int) -> None:
    data = sorted((table_dir() / "data").glob("*.lance"))
    with data[0].open("r+b") as handle:
        handle.truncate(100)
    run = funes("index", str(CORPUS / "generated" / "codex"))
    assert run.returncode == 1
    assert "damaged" in run.stderr and "a data file cannot be read" in run.stderr
    assert "/rustc/" not in run.stderr and ".cargo" not in run.stderr
    code, checks = doctor()
    assert code == 1 and checks["stored data"]["status"] == "fail"
    assert recall_trouble()


def test_index_rebuilds_a_lost_fulltext_index_rather_than_leave_recall_without_it(
    memory: int,
) -> None:
    delete_fulltext()
    run = funes("index", str(CORPUS / "generated" / "codex"), "--json")
    assert run.returncode == 0, run.stderr
    assert any("rebuilt index text_idx" in step for step in json.loads(run.stdout)["maintenance"])
    assert recall_trouble() == ""


def test_what_doctor_could_not_confirm_is_a_warning_not_a_pass(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from funes.installers.base import InstallReport
    from funes.integrations.agents import record_install

    record_install("claude", InstallReport(agent="claude"), None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no `claude` to ask
    code, checks = doctor()
    loaded, hook = checks["claude: loaded"], checks["claude: hook"]
    assert loaded["status"] == "warn" and not loaded["ok"], loaded
    assert "not on PATH" in loaded["detail"]
    assert hook["status"] == "warn" and "never fired" in hook["detail"], hook
    human = cli("doctor").output
    assert "WARN claude: loaded" in human and "all " not in human.splitlines()[-1]
    assert code != 0

"""An agent bound to a local folder memory (`funes add claude PATH`): its turns are indexed into
that folder, by the seed index and by every hook, never into the default memory."""

from __future__ import annotations

import os
from pathlib import Path

from trust_fixtures import claude_transcript

from funes.index.indexer import index
from funes.index.store import ChunkStore, memory_exists
from funes.integrations import agents
from funes.integrations.hook import enqueue, spool_entry
from funes.paths import local_memory_dir


class _Report:
    def __init__(self) -> None:
        self.changed: list[Path] = []
        self.notes: list[str] = []


def _texts(path: Path) -> str:
    return " ".join(ChunkStore.open(path).scan(["text"]).column("text").to_pylist())


def test_hooks_index_a_folder_bound_agent_into_its_folder(tmp_path: Path) -> None:
    from funes.integrations.hook_worker import drain

    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    folder = tmp_path / "team-memory"
    transcript = claude_transcript("sess-1", ["FIRSTTURN plan", "FIRSTTURN done"], "/work/app")
    # The default memory already read this transcript (a plain `funes index` earlier) ...
    index([transcript])
    assert "FIRSTTURN" in _texts(local_memory_dir())
    # ... then claude is bound to a folder, and a new turn fires the hook.
    agents.record_install("claude", _Report(), str(folder))
    with transcript.open("a") as handle:
        handle.write(claude_transcript("tmp", ["LATERTURN asked"], "/work/app").read_text())
    (claude / "projects" / "-work-app" / "tmp.jsonl").unlink()
    enqueue(spool_entry("claude", {"hook_event_name": "Stop", "transcript_path": str(transcript)}))
    before = ChunkStore.open(local_memory_dir()).count()

    drain()

    # The folder got the whole session (its own index state: nothing is skipped because the
    # default memory read the file first); the default memory was not written.
    assert memory_exists(folder)
    held = _texts(folder)
    assert "FIRSTTURN" in held and "LATERTURN" in held
    assert ChunkStore.open(local_memory_dir()).count() == before
    assert (folder / "funes-state.json").is_file()


def test_the_seed_index_of_funes_add_goes_to_the_bound_folder(tmp_path: Path) -> None:
    folder = tmp_path / "bound"
    claude_transcript("sess-seed", ["SEEDTURN history", "SEEDTURN answer"], "/work/app")
    indexed, note = agents._seed_index("claude_code", 30.0, None, str(folder))
    assert indexed and indexed["chunks_added"] == 2, note
    assert "SEEDTURN" in _texts(folder)
    assert not memory_exists(local_memory_dir())

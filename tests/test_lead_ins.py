"""Lead-ins (funes.index.lead_in): a tool call is found by the words that announced it, and the
copy of those words follows the rows it quotes (never pushed, scrubbed, forgotten)."""

from __future__ import annotations

import io
import json
import random
import string
from pathlib import Path

import pytest
from sync_fixtures import use_home

pytest_plugins = ("sync_fixtures",)  # the `hub` fixture

ANNOUNCED = "Let me look for where the quarterly invoice totals are summed up."
CALL = {"command": "grep -rn Decimal billing/ledger.py"}
OUTPUT = "billing/ledger.py:42:    return sum((Decimal(x) for x in parts), Decimal(0))"


def _record(session: str, i: int, role: str, content: object, day: int) -> dict:
    return {
        "type": role,
        "uuid": f"{session}-u{i}",
        "parentUuid": f"{session}-u{i - 1}" if i else None,
        "sessionId": session,
        "timestamp": f"2026-01-{day:02d}T10:00:{i:02d}Z",
        "cwd": "/work/shop",
        "message": {"role": role, "content": content},
    }


def _transcript(claude: Path, session: str, announced: str, day_of_call: int = 1) -> Path:
    """A Claude Code session: a prompt, the assistant announcing a search, the Bash call and
    its output (the call and the output on `day_of_call`), then a closing reply."""
    records = [
        _record(session, 0, "user", "The totals on the invoices look off.", 1),
        _record(session, 1, "assistant", [{"type": "text", "text": announced}], 1),
        _record(
            session,
            2,
            "assistant",
            [{"type": "tool_use", "id": f"{session}-t", "name": "Bash", "input": CALL}],
            day_of_call,
        ),
        _record(
            session,
            3,
            "user",
            [{"type": "tool_result", "tool_use_id": f"{session}-t", "content": OUTPUT}],
            day_of_call,
        ),
        _record(session, 4, "assistant", [{"type": "text", "text": "Found it."}], day_of_call),
    ]
    path = claude / "projects" / "-work-shop" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _distractors(claude: Path) -> None:
    """Sessions that talk about invoices and totals without the search in question."""
    for n in range(6):
        session = f"other-{n}"
        records = [
            _record(session, 0, "user", f"Draft invoice email number {n} for the client.", 2),
            _record(
                session,
                1,
                "assistant",
                [{"type": "text", "text": f"Here is invoice email {n}; totals are in the PDF."}],
                2,
            ),
        ]
        path = claude / "projects" / "-work-mail" / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    from funes.index.indexer import index

    use_home(monkeypatch, tmp_path / "funes-home")
    claude = tmp_path / "claude"
    _transcript(claude, "sess-bill", ANNOUNCED)
    _distractors(claude)
    index(paths=[claude], everything=True)
    return claude


def test_a_tool_call_is_found_by_the_words_that_announced_it(monkeypatch, tmp_path):
    from funes.retrieve import recall

    _index(monkeypatch, tmp_path)
    result = recall("where did we look for the quarterly invoice totals", k=3, neighbors=0)
    kinds = [(h.block_type, h.session_id) for h in result.hits]
    # The call's own text shares no word with the question; its lead-in does.
    assert ("tool_use", "sess-bill") in kinds, kinds


def test_lead_ins_are_stored_for_tool_chunks_only(monkeypatch, tmp_path):
    from funes.index.store import ChunkStore

    _index(monkeypatch, tmp_path)
    rows = ChunkStore.open().scan(["block_type", "lead_in"], "session_id = 'sess-bill'")
    lead_ins: dict[str, set[str]] = {}
    for row in rows.to_pylist():
        lead_ins.setdefault(row["block_type"], set()).add(row["lead_in"])
    assert lead_ins["tool_use"] == {ANNOUNCED}
    (output_lead_in,) = lead_ins["tool_result"]
    assert output_lead_in.endswith("Decimal billing/ledger.py")  # the end of the call
    assert lead_ins["text"] == {""}


def test_outputs_of_calls_made_together_lead_in_with_their_own_call(monkeypatch, tmp_path):
    """Three Reads at once are answered one after another: each output is found by its own
    path, not by the end of the file read before it."""
    from funes.index.indexer import index
    from funes.index.store import ChunkStore

    use_home(monkeypatch, tmp_path / "funes-home")
    files = ["models.py", "cli.py", "cache.py"]
    calls = [
        {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"/w/{f}"}}
        for i, f in enumerate(files)
    ]
    records = [
        _record("sess-par", 0, "user", "Give me an overview of /w.", 1),
        _record("sess-par", 1, "assistant", calls, 1),
        *(
            _record(
                "sess-par",
                2 + i,
                "user",
                [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"contents of {f}"}],
                1,
            )
            for i, f in enumerate(files)
        ),
    ]
    path = tmp_path / "claude" / "projects" / "-w" / "sess-par.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    index(paths=[tmp_path / "claude"], everything=True)
    rows = ChunkStore.open().scan(["text", "lead_in"], "block_type = 'tool_result'").to_pylist()
    lead_ins = {row["text"].rsplit(" ", 1)[-1]: row["lead_in"] for row in rows}
    assert lead_ins.keys() == set(files)
    for name, lead_in in lead_ins.items():
        assert lead_in.endswith(f"/w/{name}"), (name, lead_in)


def test_a_push_never_sends_lead_ins_or_tool_use_ids(hub, monkeypatch, tmp_path):
    import pyarrow.parquet as pq

    from funes.index.store import ChunkStore
    from funes.sync.push import push

    _index(monkeypatch, tmp_path)
    local = ChunkStore.open().scan(["tool_use_id"], "block_type = 'tool_result'").to_pylist()
    assert local and all(row["tool_use_id"] for row in local)  # kept where they pair calls
    assert push("alice/memory", yes=True).held.rows == 0
    shards = [c for p, c in hub.files("alice/memory").items() if p.endswith(".parquet")]
    assert shards
    for content in shards:
        table = pq.read_table(io.BytesIO(content))
        assert "lead_in" not in table.column_names and "tool_use_id" not in table.column_names
        assert "tool_use" in table.column("block_type").to_pylist()


def test_forget_before_clears_a_lead_in_quoting_a_forgotten_turn(monkeypatch, tmp_path):
    from funes.index.indexer import index
    from funes.index.store import ChunkStore
    from funes.project.forget import apply, plan

    use_home(monkeypatch, tmp_path / "funes-home")
    claude = tmp_path / "claude"
    secret_plan = "Let me look for the zanzibar-merger spreadsheet totals."
    _transcript(claude, "sess-bill", secret_plan, day_of_call=9)
    index(paths=[claude], everything=True)

    apply(plan(before="2026-01-05"))
    store = ChunkStore.open()
    rows = store.scan(["block_type", "text", "lead_in"]).to_pylist()
    assert {r["block_type"] for r in rows} == {"tool_use", "tool_result", "text"}
    assert all("zanzibar" not in (r["lead_in"] or "") + r["text"] for r in rows)
    files = [p for p in (tmp_path / "funes-home").rglob("*") if p.is_file()]
    assert not [p for p in files if b"zanzibar" in p.read_bytes()]


def test_forget_before_clears_an_outputs_lead_in_quoting_its_forgotten_call(monkeypatch, tmp_path):
    """Two calls made together before the cut, both outputs after it: the second output's
    lead-in quotes its call (forgotten), not the first output that comes before it."""
    from funes.index.indexer import index
    from funes.index.store import ChunkStore
    from funes.project.forget import apply, plan

    use_home(monkeypatch, tmp_path / "funes-home")
    calls = [
        {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": command}}
        for i, command in enumerate(["ls /srv", "cat /srv/zanzibar-merger.csv"])
    ]
    records = [
        _record("sess-two", 0, "user", "What is in /srv?", 1),
        _record("sess-two", 1, "assistant", calls, 1),
        _record(
            "sess-two",
            2,
            "user",
            [{"type": "tool_result", "tool_use_id": "t0", "content": "a.csv"}],
            9,
        ),
        _record(
            "sess-two",
            3,
            "user",
            [{"type": "tool_result", "tool_use_id": "t1", "content": "1,2"}],
            9,
        ),
    ]
    path = tmp_path / "claude" / "projects" / "-srv" / "sess-two.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    index(paths=[tmp_path / "claude"], everything=True)
    before = ChunkStore.open().scan(["lead_in"], "block_type = 'tool_result'").to_pylist()
    assert any("zanzibar" in row["lead_in"] for row in before)

    apply(plan(before="2026-01-05"))
    rows = ChunkStore.open().scan(["block_type", "text", "lead_in"]).to_pylist()
    assert [r["block_type"] for r in rows] == ["tool_result", "tool_result"]
    assert all("zanzibar" not in (r["lead_in"] or "") for r in rows)


def test_scrub_redacts_a_secret_a_lead_in_quotes(monkeypatch, tmp_path):
    from funes.index.chunking import chunk_turn
    from funes.index.embed import load_embedder
    from funes.index.lead_in import attach_lead_ins
    from funes.index.store import ChunkStore
    from funes.model import Block, Turn
    from funes.paths import local_memory_dir
    from funes.sync.scrub import scrub

    use_home(monkeypatch, tmp_path / "funes-home")
    rng = random.Random(3)
    token = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    turns = [
        Turn("s", "t0", None, 0, "2026-01-01T10:00:00Z", "assistant", "/w", "claude_code", "/x",
             [Block("text", f"I exported {token} and now run the clone.")]),
        Turn("s", "t1", "t0", 1, "2026-01-01T10:00:01Z", "assistant", "/w", "claude_code", "/x",
             [Block("tool_use", "command: git clone repo", tool_name="Bash")]),
    ]  # fmt: skip
    chunks = [c for t in turns for c in chunk_turn(t)]
    attach_lead_ins(chunks)  # stored as an indexer that missed the secret would store it
    embedder = load_embedder()
    store = ChunkStore.create_or_open(local_memory_dir(), embedder)
    store.add(chunks, embedder.encode([c.text for c in chunks]))
    assert token in store.scan(["lead_in"]).column("lead_in").to_pylist()[1]

    report = scrub()
    lead_ins = ChunkStore.open().scan(["lead_in"], "block_type = 'tool_use'").to_pylist()
    assert report.lead_ins == 1
    assert token not in lead_ins[0]["lead_in"] and "[REDACTED:" in lead_ins[0]["lead_in"]


def test_a_memory_from_before_lead_ins_gets_them_from_its_own_rows(monkeypatch, tmp_path):
    import shutil

    from funes.index.indexer import index
    from funes.index.store import ChunkStore
    from funes.retrieve import recall

    claude = _index(monkeypatch, tmp_path)
    table = ChunkStore.open().table
    for found in table.list_indices():  # as an older funes built it: no column, no index
        if "lead_in" in found.columns:
            table.drop_index(found.name)
    table.drop_columns(["lead_in"])
    model_id = ChunkStore.open().model_id
    shutil.rmtree(claude)  # its transcripts are gone: nothing can be read again
    (tmp_path / "nothing-new").mkdir()

    index(paths=[tmp_path / "nothing-new"], everything=True)
    store = ChunkStore.open()
    assert store.model_id == model_id
    rows = store.scan(["block_type", "lead_in"], "session_id = 'sess-bill'").to_pylist()
    assert {r["lead_in"] for r in rows if r["block_type"] == "tool_use"} == {ANNOUNCED}
    result = recall("where did we look for the quarterly invoice totals", k=3, neighbors=0)
    assert ("tool_use", "sess-bill") in [(h.block_type, h.session_id) for h in result.hits]

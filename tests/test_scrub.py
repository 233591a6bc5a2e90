"""`funes scrub` repairs stored rows so the next push goes through."""

from __future__ import annotations

import random
import string

from sync_fixtures import SESSIONS_A, add_sessions, remote_text, use_home

pytest_plugins = ("sync_fixtures",)  # the `hub` fixture

_rng = random.Random(7)


def _token(prefix: str, n: int) -> str:
    return prefix + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(n))


def test_scrub_redacts_or_drops_then_push_publishes_everything_left(hub, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from funes.cli import main
    from funes.index.store import ChunkStore
    from funes.sync.gate import find_dirty_blocks, reassemble_blocks
    from funes.sync.push import push

    use_home(monkeypatch, tmp_path / "home")
    add_sessions(SESSIONS_A)
    github = _token("ghp_", 36)
    add_sessions({"sess-leak": [f"I exported the token {github} and the clone worked."]})
    assert push("alice/memory", yes=True).held.rows == 1

    result = CliRunner().invoke(main, ["scrub"])
    assert result.exit_code == 0, result.output
    assert "scrubbed" in result.output

    store = ChunkStore.open()
    rows = store.scan(list(store.table.schema.names)).to_pylist()
    assert not find_dirty_blocks(reassemble_blocks(rows))
    assert all(github not in r["text"] for r in rows)
    assert store.count() == 5  # redacted in place, not dropped
    assert any("[REDACTED:" in r["text"] for r in rows if r["session_id"] == "sess-leak")

    again = CliRunner().invoke(main, ["scrub"])
    assert "already clean" in again.output

    report = push("alice/memory")
    assert report.held.rows == 0 and github not in remote_text(hub, "alice/memory")

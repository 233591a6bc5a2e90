"""Where a session ran leaves the machine as the dataset card promises: no user name (also where
Claude Code spelled the home folder into a folder name) and no secret (a working directory named
for a token goes through the same gate as the text)."""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest
from sync_fixtures import use_home
from trust_fixtures import claude_transcript, funes

from funes.sync.published_paths import home_relative

pytest_plugins = ("sync_fixtures",)  # the `hub` fixture

REPO = "alice/memory"
AWS_KEY = "AKIAZ3MHALDQ4PL7WXYZ"
GITHUB_TOKEN = "ghp_Zk3mQ9xR2vL8wT4yN6bP1cD5fG7hJ0aS2eU4"


@pytest.mark.parametrize(
    ("recorded", "published"),
    [
        (
            "/home/alice/.claude/projects/-home-alice-work-shop/s.jsonl",
            "~/.claude/projects/~-work-shop/s.jsonl",
        ),
        ("/Users/bob/.claude/projects/-Users-bob-dev/s.jsonl", "~/.claude/projects/~-dev/s.jsonl"),
        ("/root/.claude/projects/-root-shop/s.jsonl", "~/.claude/projects/~-shop/s.jsonl"),
        ("/srv/build", "/srv/build"),
    ],
)
def test_a_home_folder_spelled_into_a_folder_name_is_written_as_the_home(
    recorded: str, published: str
) -> None:
    assert home_relative(recorded, "/nonexistent-home") == published


def test_a_user_name_with_a_dash_is_known_from_the_working_directory() -> None:
    path = "/srv/claude/projects/-home-alice-smith-shop/s.jsonl"
    assert (
        home_relative(path, "/x", "/home/alice-smith/shop") == "/srv/claude/projects/~-shop/s.jsonl"
    )


def test_pushed_paths_carry_no_user_name_and_no_secret(hub, monkeypatch, tmp_path) -> None:
    from funes.sync.push import push

    home = use_home(monkeypatch, tmp_path / "funes-home")
    # Claude Code under this user's home, /home/alice: its transcripts are in ~/.claude.
    monkeypatch.setenv("HOME", "/home/alice")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    claude_transcript(
        "sess-shop",
        ["Why does the shop cache miss?", "The TTL is too short"],
        "/home/alice/work/shop",
    )
    claude_transcript("sess-aws", ["deploy the QUOKKASTACK", "done"], f"/home/alice/keys/{AWS_KEY}")
    claude_transcript(
        "sess-gh", ["clone the WOMBATREPO", "cloned"], f"/home/alice/tok/{GITHUB_TOKEN}"
    )
    assert funes("index", "--all").returncode == 0
    # The transcripts sit under this test's folder; as recorded on a real machine they would be
    # under ~/.claude: the rows are read back and their source paths put where Claude keeps them.
    from funes.index.store import ChunkStore

    store = ChunkStore.open()
    claude_dir = str(tmp_path / "claude")
    store.table.update(
        where="true",
        values_sql={"source_path": f"replace(source_path, '{claude_dir}', '/home/alice/.claude')"},
    )

    report = push(REPO, yes=True)
    shard = next(content for path, content in hub.files(REPO).items() if path.endswith(".parquet"))
    raw = shard.lower()
    assert b"alice" not in raw, "a user name left the machine"
    assert AWS_KEY.lower().encode() not in raw and GITHUB_TOKEN[4:].lower().encode() not in raw
    rows = pq.read_table(io.BytesIO(shard)).to_pylist()
    by_session = {r["session_id"]: r for r in rows}
    assert by_session["sess-shop"]["workdir"] == "~/work/shop"
    assert (
        by_session["sess-shop"]["source_path"] == "~/.claude/projects/~-work-shop/sess-shop.jsonl"
    )
    # A working directory with a secret goes out redacted (the gate's two scanners agree),
    # and so does the transcript folder Claude named for it.
    assert by_session["sess-aws"]["workdir"] == "~/keys/[REDACTED:aws_access_key]"
    assert (
        by_session["sess-gh"]["source_path"]
        == "~/.claude/projects/[REDACTED:workdir]/sess-gh.jsonl"
    )
    assert report.held.rows == 0 and report.held.paths_redacted == 2
    # The local memory keeps the paths as recorded.
    local = {
        r["session_id"]: r["workdir"] for r in store.scan(["session_id", "workdir"]).to_pylist()
    }
    assert local["sess-aws"] == f"/home/alice/keys/{AWS_KEY}"
    assert home.is_dir()

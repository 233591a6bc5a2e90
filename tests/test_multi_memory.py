"""Several memories at once (local + a team's + a project's): one ranked list, each hit naming
its memory; and the project memory a repository declares in a file it commits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from sync_fixtures import SESSIONS_A, SESSIONS_B, add_sessions

from funes.project.declared import DeclarationError, find_declared
from funes.project.multi import get_many, recall_many, split_memories

FUNES = [sys.executable, "-m", "funes.cli"]
NOW = datetime(2026, 1, 20, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")
    monkeypatch.chdir(tmp_path)  # no repository declares anything here


@pytest.fixture
def two_memories(tmp_path: Path) -> tuple[Path, Path]:
    mine, team = tmp_path / "mine", tmp_path / "team"
    add_sessions(SESSIONS_A, mine)
    add_sessions(SESSIONS_B, team)
    return mine, team


def _recall(memories: list[str], query: str):  # type: ignore[no-untyped-def]
    return recall_many(memories, query, now=NOW, neighbors=0, second_pass=False)


def test_memory_lists_split_on_commas_and_repeat_once() -> None:
    assert split_memories(["local,acme/team", "acme/team", " ", None]) == ["local", "acme/team"]
    assert split_memories(None) == []


def test_hits_from_several_memories_form_one_list_each_naming_its_memory(two_memories) -> None:
    mine, team = two_memories
    result = _recall([str(mine), str(team)], "deploy script bucket redis cache")
    assert result.memory_label == f"{mine} + {team}"
    by_session = {h.session_id: h.memory for h in result.hits}
    assert by_session["sess-deploy"] == str(team) and by_session["sess-redis"] == str(mine)
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    # Each memory alone gives the same scores: merging re-orders, it never re-scores.
    alone = {h.id: h.score for h in _recall([str(team)], "deploy script bucket redis cache").hits}
    assert all(h.score == alone[h.id] for h in result.hits if h.memory == str(team))


def test_a_chunk_held_by_two_memories_is_shown_once_from_the_first(two_memories) -> None:
    mine, team = two_memories
    add_sessions(SESSIONS_A, team)  # the team memory also holds my pushed sessions
    result = _recall([str(mine), str(team)], "why did we drop the redis cache")
    ids = [h.id for h in result.hits]
    assert len(ids) == len(set(ids))
    assert {h.memory for h in result.hits if h.session_id == "sess-redis"} == {str(mine)}


def test_filters_over_several_memories_are_slips_only_where_nothing_holds_them(
    two_memories,
) -> None:
    mine, team = two_memories
    memories = [str(mine), str(team)]

    def recall(**filters: str):  # type: ignore[no-untyped-def]
        return recall_many(memories, "bucket cache", now=NOW, neighbors=0, **filters)

    # The team memory holds the text: the filter stands in both, and my memory adds nothing.
    held = recall(has="trailing slash")
    assert {h.session_id for h in held.hits} == {"sess-deploy"} and not held.notes
    # Neither holds it: dropped, with each memory's note, and the words still search.
    slip = recall(has="bucket policy")
    assert slip.hits and len(slip.notes) == 2
    assert all("no passage holds the exact text 'bucket policy'" in n for n in slip.notes)
    # A session only my memory has keeps the team memory empty, not unfiltered.
    mine_only = recall(session="sess-redis")
    assert {h.session_id for h in mine_only.hits} == {"sess-redis"} and not mine_only.notes


def test_an_unreadable_memory_is_a_note_unless_none_can_be_read(two_memories, tmp_path) -> None:
    from funes.index.store import MemoryNotFound
    from funes.sync.memory import MemoryUnavailable

    mine, _ = two_memories
    result = _recall([str(mine), str(tmp_path / "nowhere")], "redis cache")
    assert result.hits and any("nowhere skipped" in n for n in result.notes)
    with pytest.raises((MemoryNotFound, MemoryUnavailable), match="nowhere"):
        _recall([str(tmp_path / "nowhere"), str(tmp_path / "else")], "redis cache")


def test_get_reads_the_first_memory_that_holds_the_session(two_memories) -> None:
    from funes.retrieve import TurnNotFound

    mine, team = two_memories
    got = get_many([str(mine), str(team)], "sess-deploy", "sess-deploy-t1", window=0)
    assert got.memory_label == str(team) and got.turns[0].turn_uuid == "sess-deploy-t1"
    with pytest.raises(TurnNotFound):
        get_many([str(mine), str(team)], "sess-deploy", "no-such-turn")


def test_cli_recall_and_get_take_memory_repeated(two_memories) -> None:
    mine, team = two_memories
    env = {**os.environ}
    args = ["--memory", str(mine), "--memory", str(team)]
    out = subprocess.run(
        [*FUNES, "recall", "deploy bucket trailing slash", *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    hits = json.loads(out)["hits"]
    assert hits[0]["session_id"] == "sess-deploy" and hits[0]["memory"] == str(team)
    agent = subprocess.run(
        [*FUNES, "recall", "deploy bucket trailing slash", *args, "--format", "agent"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert f"from memory {mine} + {team}" in agent.splitlines()[0]
    assert f"→ funes get --memory {team} sess-dep 0" in agent
    got = subprocess.run(
        [*FUNES, "get", "sess-deploy", "sess-deploy-t0", *args, "--format", "agent"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert f"from memory {team}" in got and "staging bucket" in got


def _declare(repo: Path, text: str, name: str = "funes.toml") -> Path:
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    return repo


def test_a_repository_declares_its_project_memory(two_memories, tmp_path, monkeypatch) -> None:
    mine, _ = two_memories
    repo = _declare(tmp_path / "widgets", 'memory = "memory/project"\n')
    team = repo / "memory" / "project"
    add_sessions(SESSIONS_B, team)  # a memory committed with the code
    (repo / "src" / "deep").mkdir(parents=True)
    assert find_declared(repo / "src" / "deep").memories == (str(team),)
    # An agent working anywhere in the checkout recalls the declared memory too.
    monkeypatch.chdir(repo / "src" / "deep")
    result = _recall([str(mine)], "deploy bucket trailing slash")
    assert result.memory_label == f"{mine} + {team}"
    assert result.hits[0].session_id == "sess-deploy" and result.hits[0].memory == str(team)
    monkeypatch.setenv("FUNES_NO_REPO_MEMORY", "1")
    assert _recall([str(mine)], "deploy bucket").memory_label == str(mine)


def test_declarations_in_pyproject_and_their_limits(tmp_path: Path) -> None:
    repo = _declare(
        tmp_path / "py",
        '[project]\nname = "x"\n[tool.funes]\nmemory = ["acme/a", "acme/b"]\n',
        "pyproject.toml",
    )
    assert find_declared(repo).memories == ("acme/a", "acme/b")
    # A pyproject without the table declares nothing; the search stops at the checkout's root.
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / "funes.toml").write_text('memory = "outside/repo"\n')
    assert find_declared(repo) is None
    for elsewhere in ("/etc/elsewhere", "../sibling", "~/mine"):
        bad = _declare(tmp_path / "bad", f'memory = "{elsewhere}"\n')
        with pytest.raises(DeclarationError, match="outside the repository"):
            find_declared(bad)
    broken = _declare(tmp_path / "broken", "memory = [\n")
    with pytest.raises(DeclarationError, match="not valid TOML"):
        find_declared(broken)


async def _mcp_recall(memories: list[str], env: dict[str, str]) -> str:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "funes.cli", "mcp", *memories], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("recall", {"query": "deploy bucket trailing slash"})
        return result.content[0].text


@pytest.mark.slow
def test_mcp_server_started_with_several_memories_merges_them(two_memories) -> None:
    mine, team = two_memories
    text = anyio.run(_mcp_recall, [str(mine), str(team)], dict(os.environ))
    assert f"from memory {mine} + {team}" in text
    assert f"→ funes get --memory {team} sess-dep 0" in text

"""`funes mcp` over stdio, driven by the MCP SDK's own client session."""

from __future__ import annotations

import os
import sys

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from recall_fixtures import build_memory, sample_turns


async def _session_calls(env: dict[str, str]) -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "funes.cli", "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        recall = await session.call_tool("recall", {"query": "why did we drop redis", "k": 2})
        filtered = await session.call_tool("recall", {"query": "redis", "harness": "hermes"})
        get = await session.call_tool("get", {"session_id": "s-shop-0001", "turn_uuid": "u2"})
        missing = await session.call_tool("get", {"session_id": "s-shop-0001", "turn_uuid": "x"})
        status = await session.call_tool("status", {})
        catchup = await session.call_tool("catchup", {"session_id": "s-shop-0"})
        weak = await session.call_tool("recall", {"query": "purple elephant quantum sonata"})
        timeline = await session.call_tool("timeline", {"session_id": "s-shop-0", "turn": "1"})
        holding = await session.call_tool("timeline", {"session_id": "s-shop-0", "has": "postgres"})
        grep = await session.call_tool(
            "get", {"session_id": "s-shop-0", "turn_uuid": "1", "grep": "postgres"}
        )
        wide = await session.call_tool(
            "get", {"session_id": "s-shop-0", "turn_uuid": "1", "window": 100_000}
        )
        negative = await session.call_tool(
            "get", {"session_id": "s-shop-0", "turn_uuid": "1", "window": -3}
        )
        bad_catchup = await session.call_tool("catchup", {"session_id": "nope-nope"})
        return {
            "errors": {
                "wide": wide.is_error,
                "negative": negative.is_error,
                "bad_catchup": bad_catchup.is_error,
            },
            "init": init,
            "tools": {t.name: t for t in tools.tools},
            "texts": {
                name: result.content[0].text
                for name, result in [
                    ("recall", recall),
                    ("filtered", filtered),
                    ("get", get),
                    ("missing", missing),
                    ("status", status),
                    ("catchup", catchup),
                    ("weak", weak),
                    ("timeline", timeline),
                    ("holding", holding),
                    ("grep", grep),
                    ("wide", wide),
                ]
            },
        }


@pytest.mark.slow
def test_mcp_server_answers_recall_get_and_status_over_stdio() -> None:
    build_memory(sample_turns())
    env = {**os.environ, "FUNES_RERANKER": "none"}
    got = anyio.run(_session_calls, env)

    assert got["init"].server_info.name == "funes"
    assert "recall" in (got["init"].instructions or "")
    assert set(got["tools"]) == {"recall", "get", "timeline", "catchup", "status"}
    assert "earlier work" in got["tools"]["recall"].description
    schema = got["tools"]["recall"].input_schema
    assert schema["required"] == ["query"]
    assert {"k", "harness", "block_type", "project", "since", "until", "session", "memory"} <= set(
        schema["properties"]
    )

    texts = got["texts"]
    assert texts["recall"].startswith("funes recall: 2 place(s)")
    assert " → funes get s-shop-0 1\n" in texts["recall"]  # the default memory: no --memory
    assert "seq1 " in texts["timeline"] and "← asked" in texts["timeline"]
    assert "Bash: " in texts["timeline"]  # a call by its key argument
    assert "has" in got["tools"]["timeline"].input_schema["properties"]
    assert " step(s) hold postgres." in texts["holding"].splitlines()[0]
    assert "(--grep postgres: only its lines)" in texts["holding"]
    assert "the cart now reads prices straight from postgres.\n" in texts["grep"]
    assert "  @ line 1\n" in texts["grep"]
    # Bounds: no window wider than the CLI allows, none negative; a failed catchup is an error.
    assert got["errors"] == {"wide": True, "negative": True, "bad_catchup": True}
    assert texts["wide"].startswith("get error: 100000 is out of range")
    assert texts["filtered"].rstrip().endswith("no results")
    assert "│ We dropped the redis cache" in texts["get"]
    assert texts["missing"] == "get error: turn x not found in session s-shop-0001"
    assert "chunks:" in texts["status"]
    assert texts["catchup"].startswith("funes catchup: session s-shop-0001 (claude_code, ")
    assert "│ Why is checkout slow? Profile the cart service please." in texts["catchup"]
    assert "note: weak results: no session shown holds" in texts["weak"]


async def _error_calls(env: dict[str, str]) -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "funes.cli", "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {
            "huge": await session.call_tool("recall", {"query": "redis " * 200_000}),
            "ok": await session.call_tool("recall", {"query": "why did we drop redis", "k": 1}),
            "missing": await session.call_tool(
                "get", {"session_id": "s-shop-0001", "turn_uuid": "x"}
            ),
            "bad_budget": await session.call_tool("recall", {"query": "redis", "max_tokens": 0}),
        }


@pytest.mark.slow
def test_mcp_refuses_a_huge_query_and_flags_every_error() -> None:
    build_memory(sample_turns())
    got = anyio.run(_error_calls, {**os.environ, "FUNES_RERANKER": "none"})

    huge = got["huge"]
    assert huge.is_error is True
    assert huge.content[0].text.startswith("recall error: query too long: 1,200,000 characters")
    assert got["ok"].is_error is False
    assert got["ok"].content[0].text.startswith("funes recall: 1 place(s)")
    for failed in ("missing", "bad_budget"):
        assert got[failed].is_error is True
    assert got["missing"].content[0].text.startswith("get error: turn x not found")


async def _recall_then_get_each_hit(env: dict[str, str]) -> list:
    import shlex

    params = StdioServerParameters(command=sys.executable, args=["-m", "funes.cli", "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        query = {"query": "what did we decide about the answer", "harness": "hermes"}
        recalled = (await session.call_tool("recall", query)).content[0].text
        gets = [line.split(" → ", 1)[1] for line in recalled.splitlines() if " → funes" in line]
        assert gets, recalled
        results = []
        for line in gets:
            _, _, handle, turn = shlex.split(line)
            results.append(
                await session.call_tool("get", {"session_id": handle, "turn_uuid": turn})
            )
        return results


@pytest.mark.slow
def test_mcp_get_answers_every_hermes_hit_as_recall_named_it(corpus) -> None:
    """Two real Hermes sessions whose ids share their first 8 characters (`20261129_…`) and
    both number a turn `1`: each hit's handle and turn, passed to `get`, find the turn."""
    from funes.index.indexer import index

    index([corpus / "generated" / "hermes"])
    results = anyio.run(_recall_then_get_each_hit, {**os.environ, "FUNES_RERANKER": "none"})
    for result in results:
        assert result.is_error is False, result.content[0].text
        assert result.content[0].text.startswith("funes get: session 20261129_")


async def _recall_and_get(env: dict[str, str]) -> list[str]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "funes.cli", "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        texts = []
        for name, arguments in (
            ("recall", {"query": "clipboard title escape"}),
            ("get", {"session_id": "s-esc-01", "turn_uuid": "0"}),
            ("timeline", {"session_id": "s-esc-01"}),
        ):
            texts.append((await session.call_tool(name, arguments)).content[0].text)
        return texts


@pytest.mark.slow
def test_mcp_answers_carry_no_terminal_escapes() -> None:
    """OSC 52 (a clipboard write) and OSC 2 (a window title) in a transcript never reach the
    model's client through recall, get or timeline (issue 31, item 10)."""
    from recall_fixtures import turn

    evil = "clipboard title escape \x1b]52;c;ZXZpbA==\x07 and \x1b]2;owned\x07 done \x9b31m"
    build_memory([turn("s-esc-01", "e1", 0, evil)])
    texts = anyio.run(_recall_and_get, {**os.environ, "FUNES_RERANKER": "none"})
    for text in texts:
        assert "clipboard title escape" in text or "funes timeline" in text
        assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text

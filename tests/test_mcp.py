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
        return {
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
    assert set(got["tools"]) == {"recall", "get", "catchup", "status"}
    assert "earlier work" in got["tools"]["recall"].description
    schema = got["tools"]["recall"].input_schema
    assert schema["required"] == ["query"]
    assert {"k", "harness", "block_type", "project", "since", "until", "session", "memory"} <= set(
        schema["properties"]
    )

    texts = got["texts"]
    assert texts["recall"].startswith("funes recall: 2 passage(s)")
    assert "  → funes get s-shop-0 u2\n" in texts["recall"]  # the default memory: no --memory
    assert texts["filtered"].rstrip().endswith("no results")
    assert "│ We dropped the redis cache" in texts["get"]
    assert texts["missing"] == "get error: turn x not found in session s-shop-0001"
    assert "chunks:" in texts["status"]
    assert texts["catchup"].startswith("funes catchup: session s-shop-0001 (claude_code, ")
    assert "│ Why is checkout slow? Profile the cart service please." in texts["catchup"]
    assert "note: weak results: no session shown holds" in texts["weak"]

"""The recall filters are declared once (`Filters`); the CLI, the MCP tool and recall() follow."""

from __future__ import annotations

import anyio
import pytest

from funes.retrieve.filters import FILTER_NAMES, FILTERS, Filters


def test_every_surface_offers_the_declared_filters() -> None:
    from funes.cli.recall_cmd import command
    from funes.integrations.mcp_server import build_server

    options = {param.name: param.opts for param in command.params}
    for spec in FILTERS:
        assert options[spec.name] == [spec.flag]

    async def recall_schema() -> dict:
        tools = {tool.name: tool for tool in await build_server().list_tools()}
        return tools["recall"].input_schema

    schema = anyio.run(recall_schema)
    assert list(schema["properties"]) == ["query", "k", "max_tokens", *FILTER_NAMES, "memory"]
    assert schema["required"] == ["query"]


def test_build_reads_each_filter_and_refuses_unknown_ones() -> None:
    built = Filters.build(harness="claude", block_type="tool_use", project=" shop ", since="")
    assert built == Filters(harness="claude_code", block_type="tool_use", project="shop")
    with pytest.raises(ValueError, match="unknown block type"):
        Filters.build(block_type="")
    with pytest.raises(TypeError, match="agent"):
        Filters.build(agent="codex")

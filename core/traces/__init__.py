"""Trace sources: one per agent, behind one interface (`TraceSource`).

Adding an agent means adding a module here (a `FileSource`), registering it in `all_sources()`,
and teaching `detect` which files are its own (`classify`) and which names a folder walk hands it
(`WALKED_NAMES`); the index and recall paths never change.
"""

from __future__ import annotations

from funes.traces.base import ReadResult, Resume, TraceSource

__all__ = ["ReadResult", "Resume", "TraceSource", "all_sources", "source_for"]


def all_sources() -> list[TraceSource]:
    from funes.traces.claude import ClaudeSource
    from funes.traces.codex import CodexSource
    from funes.traces.copilot import CopilotSource
    from funes.traces.gemini import GeminiSource
    from funes.traces.hermes import HermesSource
    from funes.traces.opencode import OpencodeSource
    from funes.traces.parquet import ParquetSource
    from funes.traces.pi import PiSource
    from funes.traces.qwen import QwenSource

    return [
        ClaudeSource(),
        CodexSource(),
        PiSource(),
        HermesSource(),
        GeminiSource(),
        QwenSource(),
        OpencodeSource(),
        CopilotSource(),
        ParquetSource(),
    ]


def source_for(harness: str) -> TraceSource:
    for source in all_sources():
        if source.harness == harness:
            return source
    raise ValueError(f"no trace source for harness {harness!r}")

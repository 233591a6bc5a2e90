"""Gemini API `parts` (Gemini CLI and Qwen Code store messages in this shape) → text.

A part is one of `{text}` (with `thought: true` for reasoning), `{functionCall: {id, name,
args}}`, `{functionResponse: {id, name, response}}`, `{inlineData: {mimeType, data}}` or
`{fileData: {mimeType, fileUri}}`.
"""

from __future__ import annotations

import json
from typing import Any

from funes.traces.text import IMAGE_ELIDED


def parts_of(content: Any) -> list[dict[str, Any]]:
    """The parts of a message's content: a list of parts, one part, or a plain string."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [part if isinstance(part, dict) else {"text": str(part)} for part in content]
    return []


def parts_text(parts: list[dict[str, Any]], *, thoughts: bool = False) -> str:
    """What the parts say (`thoughts`: only the reasoning parts, else only the rest); attached
    data becomes a marker, a file its URI."""
    pieces: list[str] = []
    for part in parts:
        if bool(part.get("thought")) != thoughts:
            continue
        if isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif thoughts:
            continue
        elif isinstance(part.get("inlineData"), dict):
            pieces.append(IMAGE_ELIDED)
        elif isinstance(part.get("fileData"), dict):
            pieces.append(str(part["fileData"].get("fileUri") or ""))
    return "\n".join(piece for piece in pieces if piece)


def response_text(response: Any) -> str:
    """A `functionResponse.response` as the text the model read: its `output` (or `error`)
    string when it has one, else the object as JSON."""
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        for key in ("output", "error", "result", "content"):
            value = response.get(key)
            if isinstance(value, str):
                return value
    if response is None:
        return ""
    return json.dumps(response, ensure_ascii=False)

"""Text helpers shared by the trace sources: timestamps, content flattening, tool-call rendering.

What ends up in a block's text is what gets embedded and searched, so it should read like what a
person saw: the command that ran, the file that was edited, the patch, not a JSON dump of ids and
base64 blobs.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

IMAGE_ELIDED = "[image elided]"

# `data:<media-type>;base64,<payload>`: the payload goes, the head stays so the reader knows
# what was there. The head must not be glued to a word (`metadata:`) and holds no spaces/quotes.
_DATA_URI = re.compile(
    r"(?<![A-Za-z0-9+\-.])(data:[^\s,;\"'<>()]*(?:;[^\s,;\"'<>()]+)*;base64,)[A-Za-z0-9+/=]+"
)


def elide_payloads(text: str) -> str:
    """Replace base64 payloads of data: URIs with `[elided]`."""
    if "base64," not in text:
        return text
    return _DATA_URI.sub(r"\1[elided]", text)


def iso_utc(value: Any) -> str:
    """Any timestamp an agent writes → ISO-8601 UTC ending in Z ("" when unknown).

    Accepts ISO strings (with Z, an offset, or naive = local time, as Hermes writes them) and
    epoch numbers in seconds or milliseconds.
    """
    moment: datetime | None = None
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int | float):
        seconds = float(value)
        if seconds > 1e11:  # milliseconds
            seconds /= 1000.0
        try:
            moment = datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return ""
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return ""
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            try:
                return iso_utc(float(text))
            except ValueError:
                return ""
        if moment.tzinfo is None:
            moment = moment.astimezone()  # naive = the machine's local time
    else:
        return ""
    utc = moment.astimezone(UTC)
    return utc.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def flatten_content(content: Any, *, image_marker: bool = True) -> str:
    """Message content (a string, or a list of parts) → plain text; images become a marker."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return json.dumps(content, ensure_ascii=False)
    parts: list[str] = []
    for item in content:
        if isinstance(item, str):
            parts.append(item)
            continue
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ("image", "input_image", "image_url"):
            if image_marker:
                parts.append(IMAGE_ELIDED)
        elif kind == "tool_reference":
            parts.append(str(item.get("tool_name") or ""))
        elif isinstance(item.get("text"), str):
            parts.append(item["text"])
        elif isinstance(item.get("content"), str | list):
            parts.append(flatten_content(item["content"], image_marker=image_marker))
    return "\n".join(part for part in parts if part)


def content_parts(content: Any) -> Iterator[tuple[Any, dict[str, Any]]]:
    """(type, part) for each object in a message's list of content parts; others are skipped."""
    for item in content or []:
        if isinstance(item, dict):
            yield item.get("type"), item


def decode_object(text: str) -> dict[str, Any] | None:
    """The JSON object `text` holds when it starts with `{` (agents pass JSON as text)."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        return None


# Keys that say what a tool call did, shown first; ids and bookkeeping keys are left out.
_LEAD_KEYS = (
    "command",
    "cmd",
    "file_path",
    "path",
    "notebook_path",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
)
_NOISE_KEYS = frozenset({"id", "call_id", "tool_use_id", "timeout", "timeout_ms", "yield_time_ms"})


def _command_text(value: Any) -> str:
    """`["bash", "-lc", "ls -la"]` → `ls -la`; other argv lists are shell-joined."""
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        if len(value) == 3 and value[1] in ("-lc", "-c") and value[0].endswith("sh"):
            return value[2]
        return shlex.join(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_tool_input(value: Any) -> str:
    """A tool call's input as readable text: `key: value` lines, the telling keys first.

    A single-key input shows just its value (`ls -la`, a patch); a JSON string (Codex and
    OpenAI-style `arguments`) is parsed first; anything that is not an object is shown as is.
    """
    if isinstance(value, str):
        decoded = decode_object(value)
        if decoded is None:
            return value
        value = decoded
    if value is None:
        return ""
    if not isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    items = [
        (k, v) for k, v in value.items() if k not in _NOISE_KEYS and v not in (None, "", [], {})
    ]
    items.sort(key=lambda kv: _LEAD_KEYS.index(kv[0]) if kv[0] in _LEAD_KEYS else len(_LEAD_KEYS))
    if len(items) == 1 and isinstance(items[0][1], str | list):
        key, only = items[0]
        return _command_text(only) if key in ("command", "cmd") else _scalar(only)
    lines = []
    for key, item in items:
        if key in ("command", "cmd"):
            text = _command_text(item)
            lines.append(f"{key}:\n{text}" if "\n" in text else f"{key}: {text}")
        else:
            lines.append(_field(key, item))
    return "\n".join(lines)


def _scalar(value: Any) -> str:
    """A value as it reads: strings raw, nested lists and objects as indented lines. JSON would
    escape their newlines and quotes: an edit's code became one line of `\\n` that neither a
    reader nor the full-text index could read (`\\nconst` is the word `nconst` to it)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        return "\n".join(_list_item(item) for item in value)
    if isinstance(value, dict) and value:
        return "\n".join(_field(key, item) for key, item in value.items())
    return json.dumps(value, ensure_ascii=False)


# A plan or todo step ({"content"|"step"|…: …, "status": …}) reads as `[status] step`; its other
# keys (Claude Code's `activeForm` repeats the step in other words) are left out.
_STEP_KEYS = ("content", "step", "title", "text", "task")


def _list_item(item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("status"), str):
        step = next((item[k] for k in _STEP_KEYS if isinstance(item.get(k), str)), None)
        if step is not None:
            return f"[{item['status']}] {step}"
    text = _scalar(item)
    return "- " + text.replace("\n", "\n  ")


def _field(key: str, value: Any) -> str:
    text = _scalar(value)
    return f"{key}:\n{text}" if "\n" in text or isinstance(value, list | dict) else f"{key}: {text}"


_COMMAND_TAGS = re.compile(r"<command-(name|message|args)>(.*?)</command-\1>", re.DOTALL)


def clean_user_text(text: str) -> str:
    """Claude Code slash-command wrappers → `/name args`; everything else unchanged."""
    if "<command-" not in text:
        return text
    found = {tag: body.strip() for tag, body in _COMMAND_TAGS.findall(text)}
    if "name" not in found:
        return text
    rest = _COMMAND_TAGS.sub("", text).strip()
    command = " ".join(part for part in (found["name"], found.get("args", "")) if part)
    return f"{command}\n{rest}".strip()

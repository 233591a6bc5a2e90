"""The agent kit's scripted model, taught to answer a `funes ask` prompt as its instruction says.

Run as a script (same arguments as `agent-kit/stub/stub_llm.py`). A request whose conversation holds
a `funes ask` prompt gets a scripted reply instead of "STUB: hello":
- when a word of the question (5+ letters, not a filler word) occurs in a passage's text, the reply
  quotes that passage line and ends with a "Sources:" line built from the passage header;
- otherwise the reply is the instruction's "not supported" answer.
Every scripted reply is appended to `$STUB_REPLY_LOG`, so a test can compare the agent's stdout with
exactly what the model said. Everything else behaves as the kit's stub.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

KIT_STUB = Path(__file__).resolve().parents[2] / "shared" / "agent-kit" / "stub"
sys.path.insert(0, str(KIT_STUB))

import stub_llm  # noqa: E402

QUESTION_RE = re.compile(r"^Question: (.+)$", re.M)
# The recall page's session line (`== <handle> <harness> <workdir>`) and place line
# (`#<rank> [<ts>] seq<N> <kind> → funes get …`).
SESSION_RE = re.compile(r"^== (?P<sid>\S+) (?P<harness>\S+)")
PLACE_RE = re.compile(r"^#\d+ \[(?P<ts>[^\]]*)\]")
FILLER = {"about", "which", "there", "their", "would", "could", "should", "where", "what's"}
NOT_SUPPORTED = (
    "The recalled passages do not support an answer to this question. Try rephrasing it, or add "
    "the agent that holds the answer with `funes add <agent>`."
)


def _conversation_text(body: dict) -> str:
    gemini_parts = [part for content in body.get("contents") or [] for part in content["parts"]]
    return stub_llm.text_of(body.get("messages") or body.get("input") or gemini_parts)


def grounded_reply(text: str) -> str | None:
    """The scripted answer to a funes ask prompt in `text`, or None when there is none."""
    start, end = text.find("== RECALLED PASSAGES =="), text.rfind("== END OF PASSAGES ==")
    question = QUESTION_RE.search(text)
    if start < 0 or end < start or question is None:
        return None
    words = {
        w for w in re.findall(r"[a-z0-9']+", question.group(1).lower()) if len(w) >= 5
    } - FILLER
    session = place = None
    for line in text[start:end].splitlines()[1:]:
        if match := SESSION_RE.match(line):
            session, place = match, None
            continue
        if match := PLACE_RE.match(line):
            place = match
            continue
        if session is None or place is None or not line.startswith("│"):
            continue
        if words & set(re.findall(r"[a-z0-9']+", line.lower())):
            date = place["ts"][:10]
            return f"{line[1:].strip()}\nSources: {session['harness']} {date} {session['sid']}"
    return NOT_SUPPORTED


def _scripted(analyse):
    def wrapped(body):
        kind, value = analyse(body)
        if kind == "text":
            reply = grounded_reply(_conversation_text(body))
            if reply is not None:
                log = os.environ.get("STUB_REPLY_LOG")
                if log:
                    with open(log, "a") as handle:
                        handle.write(json.dumps({"reply": reply}) + "\n")
                return "text", reply
        return kind, value

    return wrapped


stub_llm.anthropic_analyse = _scripted(stub_llm.anthropic_analyse)
stub_llm.chat_analyse = _scripted(stub_llm.chat_analyse)
stub_llm.responses_analyse = _scripted(stub_llm.responses_analyse)
stub_llm.gemini_analyse = _scripted(stub_llm.gemini_analyse)

if __name__ == "__main__":
    stub_llm.main()

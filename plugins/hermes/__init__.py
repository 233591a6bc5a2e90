"""funes for Hermes: `funes_recall` / `funes_get` tools and the per-turn indexing hook.

Hermes loads this folder from `$HERMES_HOME/plugins/funes/` (copied there by `funes add hermes`,
enabled through `plugins.enabled` in config.yaml) and calls `register(ctx)`. It runs inside
Hermes's own Python, which does not have funes installed, so every call goes through the funes
command line recorded in `funes.json` beside this file (`FUNES_BIN` / `FUNES_MEMORY` override).

Hermes keeps transcripts only in `$HERMES_HOME/state.db`, so the hook names the session and the
database rather than a transcript file. It fires on `on_session_end`, which Hermes calls at the
end of every turn (`run_conversation`), after the turn was written to state.db — unlike
`post_llm_call`, it also fires for interrupted turns.

Standard library only: this file is imported by Hermes, and by funes's own tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

TOOLSET = "funes"
TOOL_TIMEOUT_S = 120
# `funes hook` answers within ~150 ms; the wait only bounds a broken or missing funes.
HOOK_WAIT_S = 2.0


def _schema(
    name: str, description: str, required: list[str], **arguments: tuple[str, str]
) -> dict[str, Any]:
    """A tool's schema as Hermes takes it; `arguments`: name → (JSON type, description)."""
    properties = {
        key: {"type": kind, "description": text} for key, (kind, text) in arguments.items()
    }
    parameters = {"type": "object", "properties": properties, "required": required}
    return {"name": name, "description": description, "parameters": parameters}


_SESSION = ("string", "session handle from a recall entry")
_HIT_MEMORY = ("string", "the memory the hit came from")

RECALL_SCHEMA = _schema(
    "funes_recall",
    "Search the durable memory of past coding-agent sessions (Hermes, Claude Code, Codex, pi) "
    "for passages matching a query. Use it when the user refers to earlier work, before "
    "re-investigating something a past session may have settled, and before asserting what "
    "was or was not done. Each hit shows its time, agent, project, session and a "
    "`get <session_id> <turn_uuid>` line: read the whole turn with funes_get.",
    ["query"],
    query=("string", "what to look for, in natural words"),
    k=("integer", "number of hits (default 5)"),
    harness=("string", "only this agent: claude, codex, pi or hermes"),
    has=("string", "only passages holding this exact text (case-insensitive, like grep -Fi)"),
    memory=("string", "another memory to read (path or ORG/REPO)"),
)

GET_SCHEMA = _schema(
    "funes_get",
    "Read one place of a past session from the funes memory: the session and seq printed "
    "on a funes_recall entry's `funes get SESSION SEQ` line. About 2,000 characters by "
    "default; `grep` prints only the lines holding given words, `full` everything.",
    ["session_id", "turn_uuid"],
    session_id=_SESSION,
    turn_uuid=("string", "the entry's seq (or a turn id)"),
    grep=("string", "only the lines holding these words"),
    context=("integer", "with grep: lines shown each side (default 1)"),
    full=("boolean", "everything, whole (expensive)"),
    window=("integer", "turns either side (default 0)"),
    memory=_HIT_MEMORY,
)

TIMELINE_SCHEMA = _schema(
    "funes_timeline",
    "A past session's course from the funes memory, one line a step (asks, tool calls with "
    "their outcome, replies): around a recall entry's seq, or the whole session; `has`: only "
    "the steps holding a name or phrase, in order. For 'first', 'later', 'what happened next'.",
    ["session_id"],
    session_id=_SESSION,
    turn=("string", "the entry's seq (omit: whole session)"),
    has=("string", "only the steps holding this text (case-insensitive)"),
    memory=_HIT_MEMORY,
)


def _settings() -> tuple[list[str], str | None]:
    """(funes argv, bound memory) from funes.json, then the environment overrides."""
    command: list[str] = ["funes"]
    memory: str | None = None
    try:
        saved = json.loads((Path(__file__).parent / "funes.json").read_text())
    except (OSError, ValueError):
        saved = {}
    if isinstance(saved.get("command"), list) and saved["command"]:
        command = [str(part) for part in saved["command"]]
    if isinstance(saved.get("memory"), str) and saved["memory"]:
        memory = saved["memory"]
    if os.environ.get("FUNES_BIN", "").strip():
        command = [os.environ["FUNES_BIN"].strip()]
    if os.environ.get("FUNES_MEMORY", "").strip():
        memory = os.environ["FUNES_MEMORY"].strip()
    return command, memory


def _memory_args(args: dict[str, Any], bound: str | None) -> list[str]:
    memory = str(args.get("memory") or "").strip() or bound
    return ["--memory", memory] if memory else []


def _run(tool: str, argv: list[str]) -> str:
    command, _ = _settings()
    try:
        done = subprocess.run(
            [*command, *argv],
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{tool} error: {exc}"
    if done.returncode != 0:
        problem = (done.stderr or done.stdout).strip() or f"funes exited with {done.returncode}"
        return f"{tool} error: {problem}"
    return done.stdout.strip() or "no results"


def recall(args: dict[str, Any], **_: Any) -> str:
    bound = _settings()[1]
    argv = ["recall", "--format", "agent"]
    if args.get("k"):
        argv += ["-k", str(int(args["k"]))]
    if args.get("harness"):
        argv += ["--harness", str(args["harness"])]
    if args.get("has"):
        argv += ["--has", str(args["has"])]
    argv += [*_memory_args(args, bound), "--", str(args.get("query", ""))]
    return _run("funes_recall", argv)


def get(args: dict[str, Any], **_: Any) -> str:
    bound = _settings()[1]
    argv = ["get", "--format", "agent"]
    if args.get("grep"):
        argv += ["--grep", str(args["grep"])]
    if args.get("context") is not None:
        argv += ["--context", str(args["context"])]
    if args.get("full"):
        argv += ["--full"]
    if args.get("window") is not None:
        argv += ["--window", str(int(args["window"]))]
    argv += _memory_args(args, bound)
    # `--` last: an id that begins with `-` is an id, never an option.
    argv += ["--", str(args.get("session_id", "")), str(args.get("turn_uuid", ""))]
    return _run("funes_get", argv)


def timeline(args: dict[str, Any], **_: Any) -> str:
    bound = _settings()[1]
    argv = ["timeline", *_memory_args(args, bound)]
    if str(args.get("has") or "").strip():
        argv += ["--has", str(args["has"]).strip()]
    argv += ["--", str(args.get("session_id", ""))]
    if str(args.get("turn") or "").strip():
        argv.append(str(args["turn"]).strip())
    return _run("funes_timeline", argv)


def _hermes_home() -> Path:
    try:
        from hermes_constants import get_hermes_home  # Hermes's own resolver (profiles, env)

        return Path(get_hermes_home())
    except Exception:
        env = os.environ.get("HERMES_HOME", "").strip()
        return Path(env).expanduser() if env else Path.home() / ".hermes"


def hook_payload(session_id: str, event: str, **details: Any) -> dict[str, Any]:
    """What `funes hook hermes` reads on stdin: the session and the database that holds it."""
    home = _hermes_home()
    database = str(home / "state.db")
    return {
        "hook_event_name": event,
        "session_id": session_id,
        # The database is the transcript: funes reads it incrementally, like a JSONL file.
        "transcript_path": database,
        "db_path": database,
        "hermes_home": str(home),
        "cwd": os.getcwd(),
        **{key: value for key, value in details.items() if key in ("completed", "interrupted")},
    }


def on_session_end(session_id: str = "", **kwargs: Any) -> None:
    """Hand the finished turn to `funes hook hermes`; never raises, never blocks Hermes long."""
    if not session_id:
        return
    command, _ = _settings()
    payload = json.dumps(hook_payload(session_id, "on_session_end", **kwargs))
    try:
        child = subprocess.Popen(
            [*command, "hook", "hermes"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # survives Hermes exiting right after the turn
        )
        child.communicate(payload.encode(), timeout=HOOK_WAIT_S)
    except (OSError, subprocess.TimeoutExpired):
        pass


def register(ctx: Any) -> None:
    for schema, handler in (
        (RECALL_SCHEMA, recall),
        (GET_SCHEMA, get),
        (TIMELINE_SCHEMA, timeline),
    ):
        ctx.register_tool(
            name=schema["name"],
            toolset=TOOLSET,
            schema=schema,
            handler=handler,
            description=schema["description"],
        )
    ctx.register_hook("on_session_end", on_session_end)

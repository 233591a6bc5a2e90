"""`funes mcp` as a thin client of the resident service (`funes.integrations.warm`).

The server an agent starts lists the same tools as ever (`mcp_server.build_server`: names,
descriptions, input schemas), but answers no call itself: each call's tool name and arguments
go to the memory's resident service, which runs the same tool of the same server in its own
process and sends back the result; the answer is the one the tool returns in-process, byte for
byte. Forwarding knows no tool: a new tool or parameter needs nothing here. So the server
holds the MCP SDK and nothing heavier (no lancedb, no numpy, no model), and a new session's
first recall is answered by a memory that is already open.

The service is started when the server starts (so it is warm before the first call) and again
whenever a call finds none (killed, exited when idle, its code upgraded). Only when it cannot
be started does a call run in-process, as `funes mcp` always did; `funes doctor` then says so
(`fallback_note`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from funes.integrations import warm

# How long a call waits for a service it has just started before working in-process, and how
# long after that calls go straight in-process before trying the service again.
START_WAIT_S = 15.0
RETRY_AFTER_S = 60.0
FALLBACK_NOTE = "mcp-fallback.json"


class Forwarder:
    """Hands tool calls to the resident service, starting it when none answers."""

    def __init__(self, memory: str | None) -> None:
        self.memory = memory
        self.sock = warm.socket_path()
        self._down_until = 0.0
        self._lock = threading.Lock()

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """The service's answer to the call, as `run_tool` gave it; None when no service can
        answer it (then the caller works in-process)."""
        if warm.idle_seconds() <= 0 or time.monotonic() < self._down_until:
            return None
        request = {
            "kind": "tool",
            "client": "mcp",
            "name": name,
            "arguments": arguments,
            "memory": self.memory,
            **warm.call_context(),
        }
        if len(json.dumps(request)) > warm.MAX_REQUEST_BYTES:
            return None  # more than the service reads: this call works in-process
        deadline = time.monotonic() + START_WAIT_S
        started = broken = False
        while True:
            try:
                _header, body = warm.ask(self.sock, request)
                answer = json.loads(body)
                return answer if isinstance(answer, dict) else None
            except warm.Declined as declined:
                if declined.status != "stale":  # it cannot answer this call as we would
                    return None
            except TimeoutError:  # a service that does not even acknowledge: stopped, wedged
                self._give_up("the resident service does not answer (stopped?)")
                return None
            except (FileNotFoundError, ConnectionRefusedError):
                pass  # none there (yet): start one
            except (OSError, ValueError):
                # Killed mid-call, or a garbled reply: a tool call is a read, asking again is
                # safe; twice, and this call works in-process.
                if broken:
                    return None
                broken = True
                continue
            if time.monotonic() >= deadline:
                self._give_up(
                    f"the resident service did not answer within {START_WAIT_S:.0f} s of being "
                    "started"
                )
                return None
            if not started:
                self.start()
                started = True
            time.sleep(0.05)

    def start(self) -> None:
        """Start the service unless one is already up (its lock makes a second exit at once)."""
        with self._lock:
            warm.start_service(self.sock)

    def warm(self) -> None:
        """Make sure a service is up before the first call needs it."""
        if warm.idle_seconds() > 0 and warm.service_info(self.sock) is None:
            self.start()

    def _give_up(self, reason: str) -> None:
        self._down_until = time.monotonic() + RETRY_AFTER_S
        record_fallback(reason)


def record_fallback(reason: str) -> None:
    """Leave a note for `funes doctor`: an MCP server is working in-process, and why."""
    note = warm.logs_dir() / FALLBACK_NOTE
    try:
        note.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        payload = {"pid": os.getpid(), "when": time.time(), "reason": reason}
        note.write_text(json.dumps(payload) + "\n")
    except OSError:
        pass


def fallback_note() -> dict[str, Any] | None:
    """The last MCP server's note that it works in-process, while that server still runs."""
    note = warm.logs_dir() / FALLBACK_NOTE
    try:
        payload = json.loads(note.read_text())
        os.kill(int(payload["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return payload if isinstance(payload, dict) else None


def serve(memory: str | None = None) -> None:
    """Run `funes mcp` over stdio, forwarding every tool call to the resident service."""
    from funes.integrations import mcp_server

    if warm.idle_seconds() <= 0:  # no resident service wanted: the server works in-process
        mcp_server.serve(memory)
        return
    import anyio.to_thread

    server = mcp_server.build_server(memory)
    in_process = server.call_tool
    forwarder = Forwarder(memory)

    async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        answer = await anyio.to_thread.run_sync(forwarder.call, name, arguments)
        if answer is None:
            return await in_process(name, arguments, context)
        return to_result(answer)

    # The SDK's call handler calls the instance's `call_tool`: every call goes through here.
    server.call_tool = call_tool
    threading.Thread(target=forwarder.warm, daemon=True).start()
    server.run("stdio")


def to_result(answer: dict[str, Any]) -> Any:
    """The service's answer as the SDK's handler would have returned or raised it."""
    from mcp.shared.exceptions import MCPError
    from mcp.types import CallToolResult

    if "mcp_error" in answer:
        error = answer["mcp_error"]
        raise MCPError(error["code"], error["message"], error.get("data"))
    return CallToolResult.model_validate(answer["result"])


# The service side.

_servers: dict[str | None, Any] = {}
_servers_lock = threading.Lock()


def run_tool(memory: str | None, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run the tool `name` as `funes mcp MEMORY` does in-process (the SDK's call handler: its
    argument checks, its conversion of the result, an exception as an `isError` result), in
    a form `to_result` turns back into the same result."""
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp.types import CallToolResult, TextContent

    server = _server_for(memory)
    try:
        result = anyio.run(server.call_tool, name, arguments)
    except MCPError as error:
        return {"mcp_error": error.error.model_dump(mode="json", exclude_none=True)}
    except Exception as error:  # what the SDK's handler answers for any other failure
        result = CallToolResult(content=[TextContent(type="text", text=str(error))], is_error=True)
    return {"result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}


def _server_for(memory: str | None) -> Any:
    with _servers_lock:
        if memory not in _servers:
            from funes.integrations.mcp_server import build_server

            _servers[memory] = build_server(memory)
        return _servers[memory]

"""`funes mcp` as a thin client of the resident service (`funes.integrations.warm`).

The server an agent starts is a pipe: it joins the agent's stdio to an MCP session that the
memory's resident service serves with the MCP SDK's own server (`mcp_session`), so the answers
are the ones `funes mcp` gives in-process, byte for byte, and a new tool or parameter needs
nothing here. The pipe itself holds the standard library and nothing more (no MCP SDK, no
lancedb, no numpy, no model): a session's server stays small, and its first recall is answered
by a memory that is already open.

It keeps what it needs to carry a session over to another backend: the client's `initialize`
request and `initialized` notification, and every request not answered yet. When the service
goes away (killed, exited when idle, its code upgraded), the next message starts a new one,
replays the handshake (its answer is not passed on: the client has it) and the unanswered
requests: nothing is lost, and the client sees one session. Only when no service can be
started does the pipe run `funes mcp` in-process as a child (`FUNES_WARM_IDLE_S=0`), with the
same replay; `funes doctor` then says so (`fallback_note`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from typing import IO, Any

from funes.integrations import warm

# How long the pipe waits for a service it has just started before working in-process.
START_WAIT_S = 15.0
# How often the pipe looks for a service gone silent while calls wait.
WATCH_S = 2.0
FALLBACK_NOTE = "mcp-fallback.json"


class Backend:
    """Where the session is served: the resident service's socket, or an in-process child."""

    def __init__(self, reader: IO[bytes], write: Any, close: Any, name: str) -> None:
        self.reader, self._write, self._close, self.name = reader, write, close, name

    def send(self, line: bytes) -> None:
        self._write(line)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._close()


def connect_service(memory: str | None) -> Backend | None:
    """A session with the resident service, or None when none answers at `sock`."""
    sock = warm.socket_path()
    if not warm.reachable(sock) or not warm.ours(sock):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(warm.CONNECT_TIMEOUT_S)
        with warm.address(sock) as where:
            conn.connect(where)
        header = {"v": warm.PROTOCOL, "kind": "mcp", "client": "mcp", "memory": memory}
        conn.sendall(json.dumps(header | warm.call_context()).encode() + b"\n")
        conn.settimeout(warm.ACK_TIMEOUT_S)
        reader = conn.makefile("rb")
        reply = reader.readline().lstrip(warm.ACK)
        if json.loads(reply or b"{}").get("status") != "ok":
            raise ConnectionRefusedError("the service declined the session")
        conn.settimeout(None)
    except (OSError, ValueError, AttributeError):
        conn.close()
        return None

    def close() -> None:
        conn.shutdown(socket.SHUT_RDWR)
        conn.close()

    return Backend(reader, conn.sendall, close, "service")


def start_child(memory: str | None) -> Backend:
    """`funes mcp` working in-process, as a child whose stdio the pipe joins."""
    argv = [sys.executable, "-m", "funes.cli", "mcp", *([memory] if memory else [])]
    env = {**os.environ, warm.IDLE_ENV: "0"}
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert child.stdin is not None and child.stdout is not None
    stdin = child.stdin

    def write(line: bytes) -> None:
        stdin.write(line)
        stdin.flush()

    def close() -> None:
        stdin.close()
        child.wait()

    return Backend(child.stdout, write, close, "in-process")


class Pipe:
    """The agent's stdio joined to a backend, carried over to a new one when it goes."""

    def __init__(self, memory: str | None) -> None:
        self.memory = memory
        self.lock = threading.RLock()
        self.out_lock = threading.Lock()
        self.backend: Backend | None = None
        self.handshake: list[bytes] = []  # initialize, then initialized
        self.init_id: Any = None
        self.init_answered = False  # the client has its initialize answer
        self.closing = False
        self.swallow: Any = None  # the id of a replayed initialize, whose answer is not passed on
        self.pending: dict[str, bytes] = {}  # requests not answered yet, in order
        self.quiet_since = time.monotonic()  # when the backend last said anything

    def run(self) -> None:
        with self.lock:
            self._open()
        threading.Thread(target=self._watch, daemon=True).start()
        for line in sys.stdin.buffer:
            self._from_client(line)
        with self.lock:
            self.closing = True
            if self.backend is not None:
                self.backend.close()

    def _from_client(self, line: bytes) -> None:
        message = _parse(line)
        with self.lock:
            if message is not None:
                method = message.get("method")
                if method == "initialize":
                    self.handshake, self.init_id = [line], message.get("id")
                elif method == "notifications/initialized":
                    self.handshake = [*self.handshake[:1], line]
                if method is not None and "id" in message:
                    if not self.pending:
                        self.quiet_since = time.monotonic()
                    self.pending[_key(message["id"])] = line
            if self.backend is None:
                self.quiet_since = time.monotonic()
                self._open()  # replays what is pending, this line included
                if message is not None and "id" in message and message.get("method"):
                    return
            try:
                assert self.backend is not None
                self.backend.send(line)
            except OSError:
                self._lost()
                self._open()

    def _open(self) -> None:
        """Connect to the service (starting it when none answers), or run in-process; replay
        the handshake and what is pending."""
        backend = connect_service(self.memory)
        deadline = time.monotonic() + START_WAIT_S
        next_start = time.monotonic()
        while backend is None and time.monotonic() < deadline:
            if time.monotonic() >= next_start:  # again now and then: one may have lost a race
                warm.start_service(warm.socket_path())
                next_start = time.monotonic() + 2.0
            time.sleep(0.05)
            backend = connect_service(self.memory)
        if backend is None:
            record_fallback(f"no resident service answered within {START_WAIT_S:.0f} s")
            backend = start_child(self.memory)
        self.backend = backend
        threading.Thread(target=self._from_backend, args=(backend,), daemon=True).start()
        replay = list(self.handshake)
        if replay and self.init_answered:
            self.swallow = self.init_id
        pending = [line for line in self.pending.values() if line not in replay]
        try:
            for line in [*replay, *pending]:
                backend.send(line)
        except OSError:
            self._lost()

    def _from_backend(self, backend: Backend) -> None:
        try:
            for line in backend.reader:
                self.quiet_since = time.monotonic()
                message = _parse(line)
                if message is not None and "id" in message and "method" not in message:
                    key = _key(message["id"])
                    with self.lock:
                        self.pending.pop(key, None)
                        if self.swallow is not None and key == _key(self.swallow):
                            self.swallow = None
                            continue
                        if key == _key(self.init_id):
                            self.init_answered = True
                with self.out_lock:
                    sys.stdout.buffer.write(line)
                    sys.stdout.buffer.flush()
        except OSError:
            pass
        with self.lock:
            if self.backend is backend and not self.closing:
                self._lost()
                if self.pending:  # a call was under way: carry it over now
                    self._open()

    def _watch(self) -> None:
        """A service that says nothing while calls wait, and does not acknowledge a new
        connection either, is stopped or wedged: carry the session over to another backend."""
        while True:
            time.sleep(WATCH_S)
            with self.lock:
                backend, waiting = self.backend, bool(self.pending)
            silent = time.monotonic() - self.quiet_since > warm.SILENCE_TIMEOUT_S
            if backend is None or backend.name != "service" or not waiting or not silent:
                continue
            if warm.service_info() is not None:
                self.quiet_since = time.monotonic()  # alive, only busy
                continue
            with self.lock:
                if self.backend is backend:
                    self._lost()
                    self._open()

    def _lost(self) -> None:
        if self.backend is not None:
            self.backend.close()
        self.backend = None


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


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
    """Run `funes mcp` over stdio: the resident service's session, or in-process."""
    if warm.idle_seconds() <= 0:  # no resident service wanted: the server works in-process
        from funes.integrations import mcp_server

        mcp_server.serve(memory)
        return
    Pipe(memory).run()

"""The resident service: one warm funes process per memory (`funes.integrations.warm`).

`python -m funes.cli.warm_service SOCKET`, started detached by the first caller that finds none
(a `funes recall`, a `funes mcp` server): it takes the lock of its socket (a second service
exits at once), replaces whatever stale file is at the socket's path, then listens at once and
loads lancedb, the model and the MCP tools in the background. It answers several callers at
once on a bounded pool of threads:

- `cli`: runs the same click command the caller would have run, in the caller's working
  directory and variables, with stdout and stderr captured per thread in the caller's encoding
  and terminal flag;
- `mcp`: serves a `funes mcp` server's whole MCP session (`funes.integrations.thin_mcp` pipes
  its agent's stdio here) with the MCP SDK's own server, as `funes mcp` would in-process,
  on a thread of its own; its tool calls and the CLI calls run at most RUNNING_AT_ONCE at once;
- `ui`: one API call of a `funes ui` page (`funes.inspect.webresident`), answered by
  `funes.inspect.webapi` in the page's folder and variables, as the page would in-process;
- `info`: who it is, since when, its memory use and its callers, for `status` and `doctor`.

Each call opens the memory afresh, so a call right after `funes index` sees the new rows.
Every accepted call is acknowledged at once and gets a heartbeat byte each second until its
answer, so a caller can tell a working service from a stopped one. It declines (the caller then
works in-process) a call it cannot answer as the caller would: a bug's traceback, a working
directory that is gone, or funes's code changed on disk since it loaded it (it then exits, and
the next call starts a fresh one). It exits after `$FUNES_WARM_IDLE_S` seconds without an
answered call, or once its socket file is gone or replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from funes.cli.warm_context import Gate, Router
from funes.integrations.warm import (
    ACK,
    HEARTBEAT_S,
    MAX_REQUEST_BYTES,
    PROTOCOL,
    address,
    call_environment,
    call_variable,
    idle_seconds,
    lock_path,
    socket_path,
)

# How often an idle service looks at its socket file (gone or replaced: exit) and its clock.
TICK_S = 1.0
REQUEST_TIMEOUT_S = 5.0
# Calls taken at once; more wait their turn, and past MAX_QUEUED a caller works in-process.
WORKERS = 4
# Commands run at once (CLI calls and sessions' tool calls together): a slow one (a remote
# memory's Hub check, a long page) leaves room for the fast ones. What they share is
# thread-safe: the query embedder's word cache and the second pass's BLAS limit take locks,
# Lance's tables are opened per call. Calls with another folder or other variables still wait
# for the running ones (funes.cli.warm_context.Gate).
RUNNING_AT_ONCE = 4
MAX_QUEUED = 64
# Callers remembered for `info` (the most recent ones).
MAX_CALLERS = 64


class _Terminal(io.BytesIO):
    """A captured stream that says it is, or is not, a terminal, as the caller's was."""

    def __init__(self, isatty: bool) -> None:
        super().__init__()
        self._isatty = isatty

    def isatty(self) -> bool:
        return self._isatty


class _Code:
    """funes's module files and their modification times: a service whose code changed on disk
    (an upgrade, an edit) must not answer with the old code."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        # A module imported lazily (by a call) is first seen after it was loaded: a file
        # written since the service started may hold code newer than what was imported.
        self._started = time.time_ns()

    def changed(self) -> bool:
        with self._lock:
            for name, module in list(sys.modules.items()):
                path = getattr(module, "__file__", None)
                if path and name.split(".")[0] == "funes" and path not in self._seen:
                    self._seen[path] = _mtime(path)
                    if self._seen[path] > self._started:
                        return True
            return any(_mtime(path) != mtime for path, mtime in self._seen.items())


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


OUT = Router(sys.stdout)
ERR = Router(sys.stderr)


def run_command(request: dict[str, Any]) -> tuple[int, bytes, bytes] | None:
    """Run the command line of `request` as the caller's process would, in this thread (the
    caller's folder and variables already set); None when the answer would not be the
    caller's (an exception click does not turn into output)."""
    from funes.cli import main as cli

    out_buffer, err_buffer = _Terminal(bool(request["isatty"])), _Terminal(False)
    out = io.TextIOWrapper(out_buffer, encoding=request["encoding"], errors=request["errors"])
    err = io.TextIOWrapper(
        err_buffer, encoding=request["stderr_encoding"], errors=request["stderr_errors"]
    )
    with OUT.bound(out), ERR.bound(err):
        try:
            cli.main(args=list(request["argv"]), prog_name=request["prog_name"])
            code = 0
        except SystemExit as done:
            code = _exit_status(done, err)
        except Exception:
            return None
        finally:
            out.flush()
            err.flush()
    return code, out_buffer.getvalue(), err_buffer.getvalue()


def _exit_status(done: SystemExit, err: io.TextIOWrapper) -> int:
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code
    print(done.code, file=err)  # what the interpreter does with a non-integer exit
    return 1


@dataclass
class _Caller:
    client: str
    calls: int = 0
    first: float = field(default_factory=time.time)
    last: float = field(default_factory=time.time)


class _Connection:
    """One accepted call: its socket, and the lock that keeps heartbeats and the answer from
    interleaving."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.lock = threading.Lock()
        self.done = False

    def send(self, data: bytes) -> None:
        with self.lock, contextlib.suppress(OSError):  # the caller gave up: it works in-process
            if not self.done:
                self.conn.sendall(data)

    def hand_over(self, header: dict[str, Any]) -> None:
        """Send `header`, then nothing more: the connection's bytes are a session's now."""
        self.send(json.dumps(header).encode() + b"\n")
        with self.lock:
            self.done = True

    def finish(self, header: dict[str, Any], body: bytes = b"") -> None:
        self.send(json.dumps(header).encode() + b"\n" + body)
        with self.lock:
            self.done = True
        self.conn.close()


class Service:
    def __init__(self, listener: socket.socket, sock: Path, idle_s: float) -> None:
        self.listener, self.sock, self.idle_s = listener, sock, idle_s
        self.identity = _identity(sock)
        self.started = time.time()
        self.code = _Code()
        self.gate = Gate(call_variable, RUNNING_AT_ONCE)
        self.pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="call")
        self.lock = threading.Lock()
        self.open: set[_Connection] = set()
        self.callers: dict[int, _Caller] = {}
        self.answered = 0
        self.sessions = 0
        self.busy = 0  # sessions' tool calls under way
        self.running = 0  # CLI and page calls under way, past the points where one is declined
        self.last_answer = time.monotonic()
        self.stop = threading.Event()
        # Set once the warm-up has imported what calls need: two threads importing the same
        # modules at once can deadlock on Python's import locks, so calls start after it. The
        # MCP SDK comes first and alone: a session's handshake (which an agent waits for at
        # start-up) needs only it, its tool calls wait for the rest.
        self.sdk_ready = threading.Event()
        self.warmed = threading.Event()

    # the accept loop (main thread)

    def serve(self) -> None:
        self.code.changed()  # the modules loaded so far
        threading.Thread(target=self._beat, name="heartbeat", daemon=True).start()
        self.listener.settimeout(min(TICK_S, self.idle_s))
        try:
            # Checked between calls too: calls that are only declined keep coming, and must
            # not keep an idle service alive.
            while not self.stop.is_set() and not self._should_exit():
                try:
                    conn, _ = self.listener.accept()
                except TimeoutError:
                    continue
                self._accept(conn)
        finally:
            self.pool.shutdown(wait=True)

    def _accept(self, conn: socket.socket) -> None:
        pid = _peer(conn)
        if pid is None:
            conn.close()
            return
        call = _Connection(conn)
        with self.lock:
            busy = len(self.open) >= WORKERS + MAX_QUEUED
            if not busy:
                self.open.add(call)
        if busy:
            call.finish({"status": "busy"})
            return
        call.send(ACK)  # alive: the caller now waits for heartbeats rather than a deadline
        self.pool.submit(self._handle, call, pid)

    def _should_exit(self) -> bool:
        if not _still_ours(self.sock, self.identity):
            return self._exiting("its socket file is gone or replaced")
        with self.lock:
            # Calls merely open do not count: a caller whose calls are all declined (its
            # folder gone) must not keep the service alive; one that exits with calls under
            # way finishes them first (serve's pool shutdown).
            quiet = not self.running and not self.busy
            idle = quiet and time.monotonic() - self.last_answer >= self.idle_s
        return idle and self._exiting(f"no call for {self.idle_s:.0f} s")

    @staticmethod
    def _exiting(why: str) -> bool:
        print(f"exiting: {why}", file=sys.__stdout__, flush=True)
        return True

    def _beat(self) -> None:
        while not self.stop.wait(HEARTBEAT_S):
            with self.lock:
                calls = list(self.open)
            for call in calls:
                call.send(ACK)

    # one call (a pool thread)

    def _handle(self, call: _Connection, pid: int) -> None:
        header: dict[str, Any] = {"status": "decline"}
        body = b""
        try:
            request = _read_request(call.conn)
            if request.get("v") == PROTOCOL and request.get("kind") == "mcp":
                with self.lock:
                    self.open.discard(call)  # a session: no heartbeats on its stream
                self._start_session(call, request, pid)
                return
            header, body = self._answer(request, pid)
        except (OSError, ValueError, KeyError, TypeError, LookupError):
            pass  # a vanished folder, a malformed request: the caller works in-process
        call.finish(header, body)
        with self.lock:
            self.open.discard(call)
        if header.get("status") == "ok":
            self._answered()

    def _answered(self) -> None:
        with self.lock:
            self.answered += 1
            self.last_answer = time.monotonic()  # a decline keeps no service alive

    def _answer(self, request: dict[str, Any], pid: int) -> tuple[dict[str, Any], bytes]:
        if request.get("v") != PROTOCOL:
            return {"status": "decline"}, b""
        kind = request.get("kind")
        if kind == "info":
            return {"status": "ok"}, json.dumps(self.info()).encode()
        if kind not in ("cli", "ui"):
            return {"status": "decline"}, b""
        self.warmed.wait()
        if self._stale():
            return {"status": "stale"}, b""
        self._count(pid, str(request.get("client") or kind))
        if kind == "ui":
            return self._page_call(request)
        started = time.perf_counter()
        with self._running(self.gate.context(str(request["cwd"]), request.get("env") or {})):
            answered = run_command(request)
        if answered is None:
            return {"status": "decline"}, b""
        exit_code, out, err = answered
        header = {"status": "ok", "exit": exit_code, "out": len(out), "err": len(err)}
        took = (time.perf_counter() - started) * 1000
        print(
            f"answered {request['argv'][0]} in {took:.0f} ms (exit {exit_code})",
            file=sys.__stdout__,
            flush=True,
        )
        return header, out + err

    def _page_call(self, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        """One API call of a `funes ui` page (funes.inspect.webresident): the JSON its
        process would answer, with its HTTP status."""
        from funes.inspect.webapi import answer

        started = time.perf_counter()
        context = self.gate.context(str(request["cwd"]), request.get("env") or {})
        params = {str(k): str(v) for k, v in dict(request.get("params") or {}).items()}
        with self._running(context):
            try:
                status, data = answer(str(request["route"]), request.get("memory"), params)
            except Exception:  # the page's process answers it, in its own words
                return {"status": "decline"}, b""
        took = (time.perf_counter() - started) * 1000
        print(
            f"answered a page's {request['route']} in {took:.0f} ms",
            file=sys.__stdout__,
            flush=True,
        )
        return {"status": "ok", "http": status}, json.dumps(data, ensure_ascii=False).encode()

    @contextlib.contextmanager
    def _running(self, context: Any) -> Iterator[None]:
        """A call's turn in `context` (OSError when its folder is gone), counted as under way
        meanwhile: the service does not exit idle in the middle of it."""
        with self.gate.entered(context):
            with self.lock:
                self.running += 1
            try:
                yield
            finally:
                with self.lock:
                    self.running -= 1

    def _stale(self) -> bool:
        """funes's code changed on disk: answer nothing with the old code, and exit (the next
        caller starts a new service)."""
        if self.code.changed():
            self.stop.set()
            return self._exiting("funes's code changed on disk")
        return False

    def _start_session(self, call: _Connection, request: dict[str, Any], pid: int) -> None:
        if self._stale():
            call.conn.close()  # the server reconnects, to a new service
            return
        with self.lock:
            self.sessions += 1
        call.conn.settimeout(None)
        call.hand_over({"status": "ok"})
        threading.Thread(
            target=self._session, args=(call.conn, request, pid), name="mcp", daemon=True
        ).start()

    def _session(self, conn: socket.socket, request: dict[str, Any], pid: int) -> None:
        """Serve one `funes mcp` server's session: the MCP SDK's own server, as `funes mcp`
        runs it in-process, over this connection; each tool call in the server's folder and
        variables, its turn taken with every other call."""
        try:
            self.sdk_ready.wait()  # its messages wait in the socket meanwhile
            from funes.integrations.mcp_session import serve_session

            context = self.gate.context(str(request["cwd"]), request.get("env") or {})
            serve_session(conn, request.get("memory"), lambda: self._tool_turn(context, pid))
        except Exception as error:  # one session's failure is its own
            print(f"mcp session of {pid} ended: {error!r}", file=sys.__stdout__, flush=True)
        finally:
            conn.close()
            with self.lock:
                self.sessions -= 1

    @contextlib.contextmanager
    def _tool_turn(self, context: Any, pid: int) -> Any:
        """One tool call of a session: counted as under way (no idle exit) from the moment
        it waits for its turn."""
        with self.lock:
            self.busy += 1
        started = time.perf_counter()
        try:
            self.warmed.wait()
            self._count(pid, "mcp")
            try:
                self.gate.acquire(context)
            except OSError:  # its folder is gone: the call runs from the service's own
                self.gate.acquire(self.gate.context("/", dict(context[1])))
            try:
                yield
            finally:
                self.gate.release()
        finally:
            with self.lock:
                self.busy -= 1
            self._answered()
            took = (time.perf_counter() - started) * 1000
            said = f"answered a tool call of {pid} in {took:.0f} ms"
            print(said, file=sys.__stdout__, flush=True)

    def _count(self, pid: int, client: str) -> None:
        with self.lock:
            caller = self.callers.pop(pid, None) or _Caller(client)
            caller.calls += 1
            caller.last = time.time()
            self.callers[pid] = caller  # the most recent last
            while len(self.callers) > MAX_CALLERS:
                del self.callers[next(iter(self.callers))]

    def warm_up(self) -> None:
        """Run `warm_up` in the service's own folder and variables, as a call would run; calls
        wait for it."""
        try:
            with self.gate.entered(self.gate.context("/", call_environment())):
                try:
                    import_sdk()
                finally:
                    self.sdk_ready.set()
                warm_up()
        finally:
            self.sdk_ready.set()
            self.warmed.set()

    def info(self) -> dict[str, Any]:
        from funes import __version__

        with self.lock:
            callers = [
                {"pid": pid, "client": c.client, "calls": c.calls, "first": c.first, "last": c.last}
                for pid, c in self.callers.items()
                if _alive(pid)
            ]
            in_flight = len(self.open) - 1 + self.busy  # not counting this call
        return {
            "pid": os.getpid(),
            "since": self.started,
            "rss_bytes": rss_bytes(os.getpid()),
            "version": __version__,
            "executable": sys.executable,
            "socket": str(self.sock),
            "answered": self.answered,
            "in_flight": max(0, in_flight),
            "sessions": self.sessions,
            "workers": WORKERS,
            "callers": callers,
        }


def rss_bytes(pid: int) -> int | None:
    """The resident memory of process `pid` (Linux /proc); None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _identity(sock: Path) -> tuple[int, int, int]:
    """What tells this service's socket file from a later one at the same path (an inode
    number alone is soon reused)."""
    found = os.lstat(sock)
    return found.st_dev, found.st_ino, found.st_ctime_ns


def _still_ours(sock: Path, identity: tuple[int, int, int]) -> bool:
    try:
        return _identity(sock) == identity
    except OSError:
        return False


def _peer(conn: socket.socket) -> int | None:
    """The caller's pid when it runs as this service's user; None for anyone else."""
    credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", credentials)
    return pid if uid == os.getuid() else None


def _read_request(conn: socket.socket) -> dict[str, Any]:
    conn.settimeout(REQUEST_TIMEOUT_S)
    parts: list[bytes] = []
    size = 0
    while size <= MAX_REQUEST_BYTES:
        piece = conn.recv(1 << 20)
        if not piece:
            break
        parts.append(piece)
        size += len(piece)
        if b"\n" in piece:
            break
    request = json.loads(b"".join(parts).partition(b"\n")[0])
    if not isinstance(request, dict):
        raise ValueError("not a request")
    return request


def import_sdk() -> None:
    """The MCP SDK and the tools' server, all a session's handshake needs."""
    import importlib

    for module in ("funes.integrations.mcp_session", "mcp.server.stdio", "anyio.to_thread"):
        importlib.import_module(module)
    from funes.integrations.mcp_server import build_server

    build_server(None)


def warm_up() -> None:
    """Import what every call needs (lancedb, the model, the commands and what the tools
    import) and load the memory's files, by answering a recall nobody asked."""
    import importlib

    for module in (
        "funes.cli.get_cmd",
        "funes.cli.recall_cmd",
        "funes.integrations.status",
        "funes.project.multi",
        "funes.retrieve.catchup",
    ):
        importlib.import_module(module)
    request: dict[str, Any] = {"argv": ["recall", "--json", "warm up"], "prog_name": "funes"}
    request |= {"isatty": False, "encoding": "utf-8", "errors": "strict"}
    run_command(request | {"stderr_encoding": "utf-8", "stderr_errors": "strict"})


def listen(sock: Path) -> socket.socket:
    """Bind the socket (0600, in a 0700 folder), replacing whatever is at its path (a stale
    socket left by a service that died, a symlink, a file someone else put there): whoever
    holds the lock owns the path."""
    with contextlib.suppress(FileNotFoundError):
        sock.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)
    try:
        with address(sock) as where:
            listener.bind(where)
    finally:
        os.umask(previous)
    os.chmod(sock, 0o600)
    listener.listen(64)
    return listener


def main(argv: list[str]) -> None:
    idle_s = idle_seconds()
    if idle_s <= 0:
        return
    sock = Path(argv[0]) if argv else socket_path()
    sock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(sock.parent, 0o700)
    lock = os.open(lock_path(sock), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return  # another service already answers this memory
    os.chdir("/")  # never hold a caller's folder, nor depend on one that may be deleted
    sys.stdout, sys.stderr = OUT, ERR
    listener = listen(sock)
    service = Service(listener, sock, idle_s)
    print(f"resident service {os.getpid()} listening at {sock}", file=sys.__stdout__, flush=True)
    try:
        threading.Thread(target=_quietly, args=(service.warm_up,), daemon=True).start()
        service.serve()
    finally:
        service.stop.set()
        listener.close()
        if _still_ours(sock, service.identity):
            sock.unlink()
        os.close(lock)


def _quietly(work: Any, *args: Any) -> None:
    with contextlib.suppress(Exception):  # a failed warm-up only makes the first call slower
        work(*args)


if __name__ == "__main__":
    main(sys.argv[1:])

"""The warm service behind `funes recall` and `funes get` (`funes.integrations.warm`).

`python -m funes.cli.warm_service SOCKET`, started detached by the first call: it takes the lock of
its environment's socket (a second service exits at once), replaces a stale socket file, loads
lancedb and the model, then answers one call at a time by running the same click command the
process would have run, in the caller's working directory, with stdout and stderr captured in
the caller's encoding and terminal flag. Each call opens the memory afresh, so a call right
after `funes index` sees the new rows. It declines (the caller then runs in-process) a call it
cannot answer as the caller would: a bug's traceback, or funes's code changed on disk since it
loaded it (it then exits, and the next call starts a fresh one). It exits after
`$FUNES_WARM_IDLE_S` seconds without a call, or once its socket file is gone or replaced.
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
import time
from pathlib import Path
from typing import Any

from funes.integrations.warm import PROTOCOL, address, idle_seconds, lock_path, socket_path

# How often an idle service looks at its socket file (gone or replaced: exit).
TICK_S = 5.0
MAX_REQUEST_BYTES = 1 << 20
REQUEST_TIMEOUT_S = 5.0


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

    def changed(self) -> bool:
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None)
            if path and name.split(".")[0] == "funes" and path not in self._seen:
                self._seen[path] = _mtime(path)
        return any(_mtime(path) != mtime for path, mtime in self._seen.items())


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def run_command(request: dict[str, Any]) -> tuple[int, bytes, bytes] | None:
    """Run the command line of `request` as the caller's process would; None when the answer
    would not be the caller's (an exception click does not turn into output)."""
    from funes.cli import main as cli

    out_buffer, err_buffer = _Terminal(bool(request["isatty"])), _Terminal(False)
    out = io.TextIOWrapper(out_buffer, encoding=request["encoding"], errors=request["errors"])
    err = io.TextIOWrapper(
        err_buffer, encoding=request["stderr_encoding"], errors=request["stderr_errors"]
    )
    previous = os.getcwd()
    os.chdir(request["cwd"])
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
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
    finally:
        os.chdir(previous)
    return code, out_buffer.getvalue(), err_buffer.getvalue()


def _exit_status(done: SystemExit, err: io.TextIOWrapper) -> int:
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code
    print(done.code, file=err)  # what the interpreter does with a non-integer exit
    return 1


def serve(listener: socket.socket, sock: Path, identity: int, idle_s: float) -> None:
    code = _Code()
    code.changed()  # the modules loaded so far
    last_call = time.monotonic()
    listener.settimeout(min(TICK_S, idle_s))
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            if time.monotonic() - last_call >= idle_s or not _still_ours(sock, identity):
                return
            continue
        with conn:
            keep = _answer(conn, code)
        last_call = time.monotonic()
        if not keep:
            return


def _still_ours(sock: Path, identity: int) -> bool:
    try:
        return os.stat(sock).st_ino == identity
    except OSError:
        return False


def _answer(conn: socket.socket, code: _Code) -> bool:
    """Answer one call; False when the service must exit after it."""
    if not _same_user(conn):
        return True
    try:
        request = _read_request(conn)
    except (OSError, ValueError):
        return True
    if code.changed():
        _reply(conn, {"status": "stale"})
        return False
    started = time.perf_counter()
    try:
        answered = run_command(request) if request.get("v") == PROTOCOL else None
    except (OSError, KeyError, TypeError, LookupError):  # a vanished cwd, a malformed request
        answered = None
    if answered is None:
        _reply(conn, {"status": "decline"})
        return True
    exit_code, out, err = answered
    header = {"status": "ok", "exit": exit_code, "out": len(out), "err": len(err)}
    _reply(conn, header, out + err)
    took = (time.perf_counter() - started) * 1000
    print(f"answered {request['argv'][0]} in {took:.0f} ms (exit {exit_code})", flush=True)
    return True


def _same_user(conn: socket.socket) -> bool:
    credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return uid == os.getuid()


def _read_request(conn: socket.socket) -> dict[str, Any]:
    conn.settimeout(REQUEST_TIMEOUT_S)
    data = b""
    while b"\n" not in data and len(data) < MAX_REQUEST_BYTES:
        piece = conn.recv(1 << 16)
        if not piece:
            break
        data += piece
    request = json.loads(data.partition(b"\n")[0])
    if not isinstance(request, dict):
        raise ValueError("not a request")
    return request


def _reply(conn: socket.socket, header: dict[str, Any], body: bytes = b"") -> None:
    with contextlib.suppress(OSError):  # the caller gave up: it runs the call itself
        conn.sendall(json.dumps(header).encode() + b"\n" + body)


def warm_up() -> None:
    """Load what every call needs (lancedb, the model, the commands, the memory's files) before
    the first call is answered, by answering one nobody asked; calls that arrive meanwhile
    wait in the socket's queue."""
    import importlib

    importlib.import_module("funes.cli.get_cmd")
    request: dict[str, Any] = {"argv": ["recall", "--json", "warm up"], "prog_name": "funes"}
    request |= {"cwd": os.getcwd(), "isatty": False, "encoding": "utf-8", "errors": "strict"}
    run_command(request | {"stderr_encoding": "utf-8", "stderr_errors": "strict"})


def listen(sock: Path) -> socket.socket:
    """Bind the socket (0600, in a 0700 folder), replacing a stale file left by a service that
    died: whoever holds the lock owns the path."""
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
        return  # another service already answers this environment
    listener = listen(sock)
    identity = os.stat(sock).st_ino
    try:
        with contextlib.suppress(Exception):  # a failed warm-up only makes the first call slower
            warm_up()
        serve(listener, sock, identity, idle_s)
    finally:
        listener.close()
        if _still_ours(sock, identity):
            sock.unlink()
        os.close(lock)


if __name__ == "__main__":
    main(sys.argv[1:])

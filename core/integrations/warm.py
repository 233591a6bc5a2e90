"""A `funes recall` or `funes get` process answered by a warm funes process of the same memory.

pi and Hermes run `funes recall` as a process per tool call, and people do too: a cold process
spends most of a second importing lancedb and loading the model before it searches. So the
first such call runs in-process as always and, once it has answered, starts
`python -m funes.cli.warm_service` detached. Later calls made with the same environment hand
their command line to it over a Unix socket in `$FUNES_HOME/run/` (folder 0700, socket 0600),
print the bytes it captured on stdout and stderr and exit with its exit status: the same output
and errors as in-process, because the service runs the same click command with the caller's
working directory, terminal flag and stream encoding. It exits after `$FUNES_WARM_IDLE_S`
seconds without a call (default 600; 0 turns the warm path off).

Anything unexpected (no service, a stale socket file, a refused or broken connection, a service
that declines the call) and the call runs in-process, exactly as before. This module is on the
console script's path before click: standard library only, so a call costs nothing extra before
it knows whether it needs lancedb.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from funes.paths import funes_home, logs_dir

COMMANDS = frozenset({"recall", "get"})
IDLE_ENV = "FUNES_WARM_IDLE_S"
DEFAULT_IDLE_S = 600.0
PROTOCOL = 1
# Connecting to a listening Unix socket is immediate; a call queued behind another (the service
# answers one at a time) waits for it, but never longer than an agent waits for a tool.
CONNECT_TIMEOUT_S = 1.0
ANSWER_TIMEOUT_S = 120.0
# sockaddr_un holds 108 bytes (104 on macOS): a longer path is reached through its folder's
# descriptor on Linux (`/proc/self/fd/N/name`); elsewhere such a FUNES_HOME has no warm path.
MAX_SOCKET_PATH = 100
# The variables a call's answer can depend on (funes's own, the Hugging Face and Lance ones,
# Python's, locale and the agents' homes): a service only answers calls whose values match
# its own, because each combination gets its own socket.
_PREFIXES = ("FUNES_", "HF_", "HUGGINGFACE_", "LANCE", "PYTHON", "XDG_", "LC_", "TRANSFORMERS_")
_NAMES = frozenset(
    {"HOME", "LANG", "TZ", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "HERMES_HOME"}
)


def idle_seconds() -> float:
    """How long a service waits for its next call; 0 (or a bad value) turns the path off."""
    raw = os.environ.get(IDLE_ENV, "").strip()
    if not raw:
        return DEFAULT_IDLE_S
    try:
        return max(0.0, float(raw))
    except ValueError:
        return 0.0


def eligible(argv: Sequence[str]) -> bool:
    """A read the warm service can answer: `recall` or `get`, not asking for --help (its
    layout follows the caller's terminal width)."""
    if not argv or argv[0] not in COMMANDS or idle_seconds() <= 0:
        return False
    options = argv[1 : argv.index("--")] if "--" in argv else argv[1:]
    return not any(arg in ("-h", "--help") for arg in options)


def environment_key() -> str:
    relevant = sorted(
        (name, value)
        for name, value in os.environ.items()
        if name in _NAMES or name.startswith(_PREFIXES)
    )
    blob = json.dumps([PROTOCOL, sys.executable, relevant]).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def socket_path() -> Path:
    return funes_home() / "run" / f"recall-{environment_key()}.sock"


def lock_path(sock: Path) -> Path:
    return sock.with_suffix(".lock")


def reachable(sock: Path) -> bool:
    return len(os.fsencode(sock)) <= MAX_SOCKET_PATH or os.path.isdir("/proc/self/fd")


@contextmanager
def address(sock: Path) -> Iterator[str]:
    """The address to bind or connect to for `sock`, short enough for sockaddr_un."""
    if len(os.fsencode(sock)) <= MAX_SOCKET_PATH:
        yield str(sock)
        return
    if not reachable(sock):
        raise OSError(f"{sock}: too long for a Unix socket address")
    folder = os.open(sock.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{folder}/{sock.name}"
    finally:
        os.close(folder)


@dataclass(frozen=True)
class Outcome:
    exit_code: int | None  # None: run the command in-process
    socket: Path | None = None  # no service answered there: start one once this call is done


def forward(argv: Sequence[str]) -> Outcome:
    """Hand `argv` to the warm service and print its answer; Outcome(None, …) when the call
    must run in-process instead."""
    path = socket_path()
    if not reachable(path):
        return Outcome(None)
    try:
        owner = path.stat().st_uid
    except OSError:
        return Outcome(None, path)
    if owner != os.getuid():
        return Outcome(None)
    try:
        answer = _ask(path, _request(argv))
    except (OSError, ValueError):  # stale socket, refused, reset, timed out, garbled
        return Outcome(None, path)
    if answer is None:
        return Outcome(None, path)
    header, out, err = answer
    status = header.get("status")
    if status != "ok":
        return Outcome(None, path if status == "stale" else None)
    exit_code = header.get("exit")
    stdout, stderr = getattr(sys.stdout, "buffer", None), getattr(sys.stderr, "buffer", None)
    if not isinstance(exit_code, int) or stdout is None or stderr is None:
        return Outcome(None)
    try:
        stdout.write(out)
        stdout.flush()
        stderr.write(err)
        stderr.flush()
    except OSError:  # the reader went away mid-answer: printing it again would not help
        return Outcome(1)
    return Outcome(exit_code)


def _request(argv: Sequence[str]) -> dict[str, Any]:
    stdout = sys.stdout
    return {
        "v": PROTOCOL,
        "argv": list(argv),
        "prog_name": program_name(),
        "cwd": os.getcwd(),
        "isatty": bool(stdout.isatty()),
        "encoding": getattr(stdout, "encoding", None) or "utf-8",
        "errors": getattr(stdout, "errors", None) or "strict",
        "stderr_encoding": getattr(sys.stderr, "encoding", None) or "utf-8",
        "stderr_errors": getattr(sys.stderr, "errors", None) or "backslashreplace",
    }


def program_name() -> str:
    """The name click prints in usage lines, as click derives it for this process."""
    main = sys.modules.get("__main__")
    package = getattr(main, "__package__", None)
    path = sys.argv[0] if sys.argv and sys.argv[0] else "funes"
    if not package:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def _ask(path: Path, request: dict[str, Any]) -> tuple[dict[str, Any], bytes, bytes] | None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(CONNECT_TIMEOUT_S)
        with address(path) as where:
            conn.connect(where)
        conn.settimeout(ANSWER_TIMEOUT_S)
        conn.sendall(json.dumps(request).encode() + b"\n")
        conn.shutdown(socket.SHUT_WR)
        data = _read_all(conn)
    head, sep, body = data.partition(b"\n")
    if not sep:
        return None  # the service went away mid-call
    header = json.loads(head)
    if not isinstance(header, dict):
        return None
    if header.get("status") != "ok":
        return header, b"", b""
    out_len, err_len = int(header["out"]), int(header["err"])
    if len(body) != out_len + err_len:
        return None
    return header, body[:out_len], body[out_len:]


def _read_all(conn: socket.socket) -> bytes:
    parts = []
    while piece := conn.recv(1 << 16):
        parts.append(piece)
    return b"".join(parts)


def start_service(path: Path) -> None:
    """Start the warm service for the socket `path` (this environment's, computed before the
    call ran: running it may set variables, such as LANCEDB_LOG), detached; a second one started
    at the same time finds the first holding the lock and exits."""
    try:
        from funes.integrations.hook import rotate_log, spawn_detached

        log_folder = logs_dir()
        log_folder.mkdir(parents=True, exist_ok=True)
        log = log_folder / "warm.log"
        rotate_log(log)
        spawn_detached([sys.executable, "-m", "funes.cli.warm_service", str(path)], log)
    except OSError:
        pass  # the warm path is an optimisation: this call has already answered

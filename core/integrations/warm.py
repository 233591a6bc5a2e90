"""The client side of the resident service: one warm funes process per memory that answers
`funes recall`, `funes get` and every `funes mcp` tool call (`funes.cli.warm_service`).

pi and Hermes run `funes recall` as a process per tool call, each agent session starts its own
`funes mcp`, and people do both at once: a process that opens the memory itself spends most of
a second and ~300 MB importing lancedb and loading the model. So one service per memory holds
them, and every caller hands it its call over a Unix socket in `$FUNES_HOME/run/` (folder 0700,
socket 0600, its owner's only):

- a CLI call (`recall`, `get`) hands over its command line and prints the bytes the service
  captured on stdout and stderr, exiting with its status: the same output and errors as
  in-process, because the service runs the same click command with the caller's working
  directory, environment, terminal flag and stream encoding;
- an MCP tool call hands over the tool's name and arguments (`funes.integrations.thin_mcp`),
  and gets back the result the same tool function returned in the service.

The service acknowledges a call the moment it accepts it and sends a heartbeat byte every
second while it works, so a caller waits at most a few seconds on a service that is stopped
(`kill -STOP`) or wedged, then does the work itself. Anything unexpected (no service, a stale
socket file, something other than our own socket at its path, a refused or broken connection, a
service that declines) and the call runs in-process, exactly as before. This module is on the
console script's path before click: standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from funes.paths import funes_home, logs_dir

COMMANDS = frozenset({"recall", "get"})
IDLE_ENV = "FUNES_WARM_IDLE_S"
DEFAULT_IDLE_S = 600.0
PROTOCOL = 2
# Connecting to a listening Unix socket is immediate, and a live service acknowledges a call
# at once and then beats every HEARTBEAT_S: a caller gives up on one that stays silent longer.
CONNECT_TIMEOUT_S = 1.0
ACK_TIMEOUT_S = 3.0
SILENCE_TIMEOUT_S = 10.0
HEARTBEAT_S = 1.0
ANSWER_TIMEOUT_S = 600.0
ACK = b"+"
# The largest call a service reads (an MCP argument may be long; the tools refuse what is too
# long for them, in their own words); a larger one runs in-process.
MAX_REQUEST_BYTES = 64 << 20
# sockaddr_un holds 108 bytes (104 on macOS): a longer path is reached through its folder's
# descriptor on Linux (`/proc/self/fd/N/name`); elsewhere such a FUNES_HOME has no warm path.
MAX_SOCKET_PATH = 100
# The variables that pick what a service answers from (funes's settings, where the models are
# cached): a service answers only callers whose values match its own, each combination with
# its own socket. (FUNES_HOME is in the socket's path.)
_NOT_CONFIG = frozenset({IDLE_ENV, "FUNES_BIN", "FUNES_HOME"})
_MODEL_CACHES = frozenset(
    {"HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE"}
)
# The rest of what an answer can depend on (the home folder, locale, time zone, the agents'
# homes, the Hub's offline switch, Lance's logging): each call carries its own values and the
# service runs it with them, so agents that pass different environments to their MCP servers
# still share one service.
_CALL_PREFIXES = ("PYTHON", "XDG_", "LC_", "HF_", "HUGGINGFACE_", "LANCE", "TRANSFORMERS_")
_CALL_NAMES = frozenset(
    {"HOME", "LANG", "TZ", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "HERMES_HOME"}
)


def _config_variable(name: str) -> bool:
    return (name.startswith("FUNES_") and name not in _NOT_CONFIG) or name in _MODEL_CACHES


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


def call_variable(name: str) -> bool:
    """A variable each call brings and the service sets while it runs that call."""
    if _config_variable(name):
        return False
    return name in _CALL_NAMES or name.startswith(_CALL_PREFIXES)


def call_environment() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if call_variable(name)}


def environment_key() -> str:
    relevant = sorted((name, value) for name, value in os.environ.items() if _config_variable(name))
    # The installation (its prefix), not the interpreter's name: a console script runs
    # `python3` where `python -m funes` runs `python`, and both must reach one service.
    blob = json.dumps([PROTOCOL, os.path.realpath(sys.prefix), relevant]).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def socket_path() -> Path:
    return funes_home() / "run" / f"resident-{environment_key()}.sock"


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


def ours(sock: Path) -> bool:
    """True when `sock` is a socket this user owns, in a folder only this user can enter: never
    a symlink (connecting would follow it anywhere) nor a file someone else put there."""
    try:
        folder, entry = os.lstat(sock.parent), os.lstat(sock)
    except OSError:
        return False
    uid = os.getuid()
    private = stat.S_ISDIR(folder.st_mode) and folder.st_mode & 0o077 == 0
    return private and folder.st_uid == uid and stat.S_ISSOCK(entry.st_mode) and entry.st_uid == uid


class Declined(Exception):
    """The service would not answer this call as the caller would (or went away)."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


def ask(sock: Path, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """Send `request` to the service at `sock`; its reply's header and body.

    OSError when no live service answers there (nothing listening, something that is not our
    socket, a service silent past its heartbeat); Declined when it answers that it will not."""
    if not reachable(sock) or not ours(sock):
        raise FileNotFoundError(f"{sock}: no service socket")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(CONNECT_TIMEOUT_S)
        with address(sock) as where:
            conn.connect(where)
        conn.sendall(json.dumps({"v": PROTOCOL, **request}).encode() + b"\n")
        conn.shutdown(socket.SHUT_WR)
        data = _read_reply(conn)
    head, sep, body = data.partition(b"\n")
    if not sep:
        raise ConnectionResetError("the service went away mid-call")
    try:
        header = json.loads(head)
    except ValueError as error:
        raise ConnectionResetError(f"a garbled reply: {error}") from None
    if not isinstance(header, dict):
        raise ConnectionResetError("a garbled reply")
    if header.get("status") != "ok":
        raise Declined(str(header.get("status")))
    return header, body


def _read_reply(conn: socket.socket) -> bytes:
    """The reply after the service's acknowledgement and heartbeats; TimeoutError when it is
    silent too long (stopped, wedged) or takes longer than any call should."""
    deadline = time.monotonic() + ANSWER_TIMEOUT_S
    conn.settimeout(ACK_TIMEOUT_S)
    parts: list[bytes] = []
    started = False
    while time.monotonic() < deadline:
        piece = conn.recv(1 << 16)
        if not piece:
            return b"".join(parts)
        if not started:
            piece = piece.lstrip(ACK)
            started = bool(piece)
            conn.settimeout(SILENCE_TIMEOUT_S)
        if piece:
            parts.append(piece)
    raise TimeoutError("the service took too long")


def call_context() -> dict[str, Any]:
    """Where and with what the call runs: the caller's working directory and variables."""
    return {"cwd": os.getcwd(), "env": call_environment(), "pid": os.getpid()}


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
        header, body = ask(path, _request(argv))
    except Declined as declined:
        return Outcome(None, path if declined.status == "stale" else None)
    except (OSError, ValueError):  # none there, refused, reset, silent, garbled
        return Outcome(None, path)
    exit_code, out_len, err_len = header.get("exit"), header.get("out"), header.get("err")
    stdout, stderr = getattr(sys.stdout, "buffer", None), getattr(sys.stderr, "buffer", None)
    if not all(isinstance(n, int) for n in (exit_code, out_len, err_len)):
        return Outcome(None)
    if stdout is None or stderr is None or len(body) != out_len + err_len:  # type: ignore[operator]
        return Outcome(None)
    assert isinstance(exit_code, int) and isinstance(out_len, int)
    try:
        stdout.write(body[:out_len])
        stdout.flush()
        stderr.write(body[out_len:])
        stderr.flush()
    except OSError:  # the reader went away mid-answer: printing it again would not help
        return Outcome(1)
    return Outcome(exit_code)


def _request(argv: Sequence[str]) -> dict[str, Any]:
    stdout = sys.stdout
    return {
        "kind": "cli",
        "client": "cli",
        "argv": list(argv),
        "prog_name": program_name(),
        "isatty": bool(stdout.isatty()),
        "encoding": getattr(stdout, "encoding", None) or "utf-8",
        "errors": getattr(stdout, "errors", None) or "strict",
        "stderr_encoding": getattr(sys.stderr, "encoding", None) or "utf-8",
        "stderr_errors": getattr(sys.stderr, "errors", None) or "backslashreplace",
        **call_context(),
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


def start_service(path: Path) -> None:
    """Start the service for the socket `path` (this environment's, computed before the call
    ran: running it may set variables, such as LANCEDB_LOG), detached; a second one started at
    the same time finds the first holding the lock and exits."""
    try:
        from funes.integrations.hook import rotate_log, spawn_detached

        # Fewer malloc arenas: the service's threads share its memory rather than each
        # keeping a heap of its own (tens of MB on a large memory).
        os.environ.setdefault("MALLOC_ARENA_MAX", "2")
        log_folder = logs_dir()
        log_folder.mkdir(parents=True, exist_ok=True)
        log = log_folder / "warm.log"
        rotate_log(log)
        spawn_detached([sys.executable, "-m", "funes.cli.warm_service", str(path)], log)
    except OSError:
        pass  # the warm path is an optimisation: the call runs in-process


def service_info(path: Path | None = None) -> dict[str, Any] | None:
    """What the running service says about itself (pid, since, RSS, callers); None when none
    answers."""
    sock = path or socket_path()
    try:
        header, body = ask(sock, {"kind": "info", "client": "status", **call_context()})
        info = json.loads(body)
    except (OSError, ValueError, Declined):
        return None
    return info if isinstance(info, dict) and header.get("status") == "ok" else None

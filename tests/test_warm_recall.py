"""`funes recall` / `funes get` answered by a warm funes process: the same bytes, errors and
exit statuses as a cold process, fresh rows right after an index, and nothing left running."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from recall_fixtures import build_memory, sample_turns, turn

from funes.plugins import hermes as plugin

FUNES = str(Path(sys.executable).parent / "funes")
pytestmark = pytest.mark.slow


def run(*args: str, warm: bool = True) -> tuple[int, bytes, bytes]:
    env = {**os.environ, **({} if warm else {"FUNES_WARM_IDLE_S": "0"})}
    done = subprocess.run([FUNES, *args], capture_output=True, env=env, timeout=120)
    return done.returncode, done.stdout, done.stderr


def answered(home: Path) -> int:
    """Calls the warm service has answered (one log line each)."""
    log = home / "logs" / "warm.log"
    return log.read_text().count("answered ") if log.is_file() else 0


def sockets(home: Path) -> list[Path]:
    return sorted((home / "run").glob("*.sock"))


def service_pid(sock: Path) -> int | None:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(sock))
            raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return None
    return struct.unpack("3i", raw)[0]


def wait_for_service(home: Path, limit_s: float = 60.0) -> int:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        for sock in sockets(home):
            pid = service_pid(sock)
            if pid is not None:
                return pid
        time.sleep(0.1)
    raise AssertionError("no warm service started")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    status = Path(f"/proc/{pid}/stat")
    return status.is_file() and status.read_text().split(")")[-1].split()[0] != "Z"


@pytest.fixture
def warm_home(tmp_funes_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("FUNES_WARM_IDLE_S", "30")
    build_memory(sample_turns())
    yield tmp_funes_home
    for sock in sockets(tmp_funes_home):
        pid = service_pid(sock)
        if pid is not None:
            os.kill(pid, signal.SIGCONT)  # one a test stopped
            os.kill(pid, signal.SIGTERM)


def test_a_warm_call_prints_what_a_cold_one_prints(warm_home: Path) -> None:
    # Recency off: a score moves with the clock, and the calls are seconds apart.
    calls = [
        ("recall", "--half-life", "0", "redis cache"),
        ("recall", "--half-life", "0", "--json", "--harness", "codex", "backup"),
        ("recall", "--since", "bogus", "x"),  # one error line, exit 1
        ("recall",),  # a usage error, exit 2, naming the program
        ("get", "s-shop-0001", "u2", "--window", "1"),
        ("get", "s-shop-0001", "no-such-turn"),
    ]
    cold = [run(*call, warm=False) for call in calls]
    assert [c[0] for c in cold] == [0, 0, 1, 2, 0, 1]
    assert not sockets(warm_home)  # FUNES_WARM_IDLE_S=0: no service

    assert run(*calls[0]) == cold[0]  # answers in-process, then starts the service
    wait_for_service(warm_home)
    warm = [run(*call) for call in calls]
    assert answered(warm_home) == len(calls)
    assert warm == cold


def test_a_warm_recall_sees_rows_indexed_after_it_started(warm_home: Path) -> None:
    run("recall", "redis cache")
    wait_for_service(warm_home)
    assert b"zebracanary" not in run("recall", "zebracanary rollout")[1]
    build_memory([turn("s-new-0004", "z1", 0, "The zebracanary rollout paused at 40%.")])
    code, out, _ = run("recall", "zebracanary rollout")
    assert code == 0 and b"zebracanary rollout paused" in out
    assert answered(warm_home) == 2


def test_the_service_exits_when_idle(warm_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_WARM_IDLE_S", "1")
    run("recall", "redis cache")
    pid = wait_for_service(warm_home)
    deadline = time.monotonic() + 30
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(pid)
    assert not sockets(warm_home)  # it removed its socket file on the way out


def test_a_stale_socket_file_is_replaced(warm_home: Path) -> None:
    expected = run("recall", "redis cache", warm=False)
    run("recall", "redis cache")
    pid = wait_for_service(warm_home)
    (sock,) = sockets(warm_home)
    os.kill(pid, signal.SIGKILL)  # dies without removing its socket file
    # Dead, and its listening socket closed (the kernel may close it a moment after the
    # process shows as gone).
    deadline = time.monotonic() + 10
    while (alive(pid) or service_pid(sock) is not None) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sock.exists() and service_pid(sock) is None  # its file is left behind
    assert run("recall", "redis cache") == expected  # in-process, then a fresh service
    assert wait_for_service(warm_home) != pid
    assert run("recall", "redis cache") == expected
    assert answered(warm_home) == 1
    assert sock.stat().st_mode & 0o777 == 0o600
    assert sock.parent.stat().st_mode & 0o777 == 0o700


def test_a_hermes_tool_call_is_answered_warm(
    warm_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUNES_BIN", FUNES)
    first = plugin.recall({"query": "why did we drop the redis cache"})
    assert "redis" in first
    wait_for_service(warm_home)
    assert plugin.recall({"query": "why did we drop the redis cache"}) == first
    assert answered(warm_home) == 1

"""One resident service per memory: `funes mcp` a thin client of it, several callers answered at
once, the same bytes as in-process, nothing lost when it is killed, stopped or misled."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from test_warm_recall import (  # noqa: F401 (warm_home: a fixture)
    FUNES,
    alive,
    answered,
    run,
    service_pid,
    sockets,
    wait_for_service,
    warm_home,
)

from funes.integrations import warm

pytestmark = pytest.mark.slow

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("recall", {"query": "why did we drop redis", "k": 2}),
    ("recall", {"query": "redis", "harness": "hermes"}),
    ("recall", {"query": "redis " * 200_000}),  # refused: an isError result
    ("recall", {"query": "x", "k": "many"}),  # fails the SDK's argument check
    ("get", {"session_id": "s-shop-0001", "turn_uuid": "u2"}),
    ("get", {"session_id": "s-shop-0001", "turn_uuid": "x"}),
    ("catchup", {"session_id": "s-shop-0"}),
    ("status", {}),
    ("nosuchtool", {}),
]


@pytest.fixture
def resident(warm_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """A memory whose calls go to its resident service (stopped after the test)."""
    monkeypatch.setenv("FUNES_RERANKER", "none")
    monkeypatch.setenv("FUNES_WARM_IDLE_S", "60")
    return warm_home


def mcp_params(**env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "funes.cli", "mcp"], env={**os.environ, **env}
    )


def dumped(result: Any) -> dict[str, Any]:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _answers(params: StdioServerParameters, probe: bool = False) -> dict[str, Any]:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = [dumped(tool) for tool in (await session.list_tools()).tools]
        results = [dumped(await session.call_tool(name, args)) for name, args in CALLS]
        info = warm.service_info() if probe else None
        # What each MCP server calling the service has loaded, read while it runs.
        maps = {c["pid"]: mapped(c["pid"]) for c in (info or {}).get("callers", [])}
        return {"tools": tools, "results": results, "info": info, "maps": maps}


def mapped(pid: int) -> str:
    """The files process `pid` has mapped: a loaded extension module shows here."""
    return Path(f"/proc/{pid}/maps").read_text()


def test_the_mcp_server_forwards_every_call_and_answers_as_in_process(resident: Path) -> None:
    in_process = anyio.run(_answers, mcp_params(FUNES_WARM_IDLE_S="0"))
    assert not sockets(resident)
    thin = anyio.run(_answers, mcp_params(), True)

    assert thin["tools"] == in_process["tools"]
    assert thin["results"] == in_process["results"]  # every byte, errors and isError included
    texts = [r["content"][0]["text"] for r in thin["results"]]
    assert texts[0].startswith("funes recall: 2 place(s)")
    assert thin["results"][2]["isError"] and thin["results"][5]["isError"]
    # The calls were answered by the service, and the server itself never loaded the memory.
    info = thin["info"]
    assert info is not None and info["answered"] >= len(CALLS)
    (caller,) = [c for c in info["callers"] if c["client"] == "mcp"]
    assert caller["calls"] == len(CALLS)
    maps = thin["maps"][caller["pid"]]
    assert "lancedb" not in maps and "numpy" not in maps and "pydantic_core" not in maps


async def _sessions_at_once(count: int) -> list[list[dict[str, Any]]]:
    answers: list[list[dict[str, Any]]] = [[] for _ in range(count)]

    async def one(slot: int) -> None:
        async with stdio_client(mcp_params()) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            for name, args in CALLS[:2] + CALLS[4:5]:
                answers[slot].append(dumped(await s.call_tool(name, args)))

    async with anyio.create_task_group() as group:
        for slot in range(count):
            group.start_soon(one, slot)
    return answers


def test_several_sessions_share_one_service(resident: Path) -> None:
    expected = anyio.run(_answers, mcp_params(FUNES_WARM_IDLE_S="0"))["results"]
    got = anyio.run(_sessions_at_once, 4)
    assert all(answers == expected[:2] + expected[4:5] for answers in got)
    assert len(sockets(resident)) == 1  # one service for the memory


async def _recall_kill_recall(home: Path) -> tuple[dict[str, Any], dict[str, Any], int, int]:
    async with stdio_client(mcp_params()) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = dumped(await session.call_tool(*CALLS[0]))
        killed = wait_for_service(home)
        os.kill(killed, signal.SIGKILL)
        while alive(killed):
            await anyio.sleep(0.05)
        second = dumped(await session.call_tool(*CALLS[0]))
        return first, second, killed, wait_for_service(home)


def test_a_killed_service_loses_nothing_and_the_next_call_starts_another(resident: Path) -> None:
    first, second, killed, now = anyio.run(_recall_kill_recall, resident)
    assert second == first
    assert now != killed
    assert not (resident / "logs" / "mcp-fallback.json").exists()  # it never fell back


def test_concurrent_cli_calls_each_get_their_own_output(resident: Path) -> None:
    calls = [
        ("recall", "--half-life", "0", "redis cache"),
        ("recall", "--half-life", "0", "--json", "backup"),
        ("get", "s-shop-0001", "u2", "--window", "1"),
        ("recall", "--since", "bogus", "x"),
    ]
    cold = [run(*call, warm=False) for call in calls]
    run(*calls[0])
    wait_for_service(resident)
    env = dict(os.environ)
    procs = [
        subprocess.Popen([FUNES, *call], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for call in calls * 2
    ]
    got = [(p.wait(120), *p.communicate()) for p in procs]
    assert got == cold * 2
    assert answered(resident) == len(calls) * 2


def test_recalls_in_threads_answer_as_one_at_a_time(
    warm_home: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the service does with several callers: recalls in threads of one process, each
    answered as if it ran alone (they raced in the query's embedding: an error, or a wrong
    vector and so wrong hits)."""
    from funes.index.embed import release_word_caches
    from funes.retrieve import recall

    monkeypatch.setenv("FUNES_RERANKER", "none")
    now = datetime(2026, 6, 1, tzinfo=UTC)
    # Each question brings words no other one has: each embedding extends the word cache.
    questions = [
        f"{topic} " + " ".join(f"{word}{i * 7}" for word in ("deploy", "host", "error", "build"))
        for i, topic in enumerate(["redis cache stale prices", "backup restore", "checkout"] * 12)
    ]
    expected = [recall(q, now=now, half_life_days=0) for q in questions]
    for _ in range(3):  # a race shows in some rounds only
        release_word_caches()
        assert _in_threads(lambda q: recall(q, now=now, half_life_days=0), questions) == expected


def _in_threads(ask: Any, questions: list[str], threads: int = 8) -> list[Any]:
    """`ask` of each question, eight threads asking at once, the answers in question order."""
    got: dict[int, Any] = {}
    start = threading.Barrier(threads)

    def one_thread(first: int) -> None:
        start.wait()
        for i in range(first, len(questions), threads):
            got[i] = ask(questions[i])

    running = [threading.Thread(target=one_thread, args=(n,)) for n in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    return [got.get(i) for i in range(len(questions))]


class _StalledHub:
    """A loopback Hub that takes a request and answers it (503) only when released: a call
    that reads a remote memory stays under way inside the service for as long as the test
    wants."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.asked, self.release = threading.Event(), threading.Event()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hub.asked.set()
                hub.release.wait(120)
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_slow_call_does_not_hold_up_a_fast_one(
    resident: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = _StalledHub()
    # Both calls bring the same variables: the service may run them side by side.
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("FUNES_HUB_TIMEOUT_S", "300")
    fast = ("get", "s-shop-0001", "u2", "--window", "1")
    try:
        expected = run(*fast, warm=False)
        run(*fast)
        wait_for_service(resident)
        before = answered(resident)
        remote = ["recall", "--memory", "hf://datasets/someone/stalled", "redis"]
        slow = subprocess.Popen([FUNES, *remote], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert hub.asked.wait(60)  # the slow call is in the service, waiting on the Hub
        # One at a time, this waited for the Hub's answer (up to FUNES_HUB_TIMEOUT_S).
        assert run(*fast) == expected
        assert slow.poll() is None  # still waiting
        assert answered(resident) == before + 1  # the service answered it, beside the slow one
    finally:
        hub.stop()
    slow.wait(120)
    assert slow.returncode == 1 and b"someone/stalled" in slow.communicate()[1]


def test_a_stopped_service_costs_a_caller_seconds_not_minutes(resident: Path) -> None:
    expected = run("recall", "redis cache", warm=False)
    run("recall", "redis cache")
    pid = wait_for_service(resident)
    os.kill(pid, signal.SIGSTOP)
    try:
        # It answers in-process once the stopped service fails to acknowledge the call; before,
        # it waited the full 120 s (past this timeout).
        done = subprocess.run([FUNES, "recall", "redis cache"], capture_output=True, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == expected
        # And status says what is wrong rather than "not running".
        status = subprocess.run([FUNES, "status", "--json"], capture_output=True, timeout=60)
        assert json.loads(status.stdout)["service"]["unresponsive"] is True
    finally:
        os.kill(pid, signal.SIGCONT)


def test_a_service_whose_folder_is_deleted_keeps_answering(resident: Path, tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    subprocess.run([FUNES, "recall", "redis cache"], cwd=folder, capture_output=True, timeout=120)
    wait_for_service(resident)
    shutil.rmtree(folder)  # the folder the service was started from
    expected = run("recall", "--half-life", "0", "redis cache", warm=False)
    assert run("recall", "--half-life", "0", "redis cache") == expected
    assert answered(resident) == 1


def _declined_call(sock: Path) -> dict[str, Any]:
    header, _ = warm.ask(sock, {"kind": "cli", "argv": ["recall", "x"], "cwd": "/no/such/dir"})
    return header


def test_declined_calls_do_not_keep_a_service_alive(
    resident: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUNES_WARM_IDLE_S", "2")
    run("recall", "redis cache")
    pid = wait_for_service(resident)
    sock = warm.socket_path()
    deadline = time.monotonic() + 30
    declined = 0
    while alive(pid) and time.monotonic() < deadline:
        try:
            _declined_call(sock)
        except warm.Declined:
            declined += 1
        except OSError:
            pass  # it is on its way out
        time.sleep(0.2)
    assert declined > 0
    assert not alive(pid)  # it exited although calls kept coming


def _listen(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(8)
    return listener


def test_the_client_never_follows_a_symlink_at_its_socket_path(
    resident: Path, tmp_path: Path
) -> None:
    expected = run("recall", "--half-life", "0", "redis cache", warm=False)
    decoy_path = Path(f"/tmp/funes-decoy-{os.getpid()}.sock")
    decoy_path.unlink(missing_ok=True)
    decoy = _listen(decoy_path)
    calls: list[bytes] = []

    def record() -> None:
        decoy.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = decoy.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                calls.append(conn.recv(1 << 16))

    stop = threading.Event()
    recorder = threading.Thread(target=record, daemon=True)
    recorder.start()
    try:
        sock = warm.socket_path()
        sock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        sock.symlink_to(decoy_path)
        assert run("recall", "--half-life", "0", "redis cache") == expected
        wait_for_service(resident)  # it replaced the link with its own socket
        assert not sock.is_symlink()
        assert run("recall", "--half-life", "0", "redis cache") == expected
        assert answered(resident) == 1
    finally:
        stop.set()
        recorder.join()
        decoy.close()
        decoy_path.unlink(missing_ok=True)
    assert calls == []  # the call (its working folder, its variables) never reached the decoy


def test_a_foreign_socket_file_is_replaced_not_obeyed(resident: Path) -> None:
    expected = run("recall", "--half-life", "0", "redis cache", warm=False)
    sock = warm.socket_path()
    sock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    foreign = _listen(sock)
    try:
        if os.getuid() == 0:
            os.chown(sock, 54321, 54321)  # another user's
        else:
            os.chmod(sock, 0o666)
            pytest.skip("needs root to give the socket file to another user")
        assert run("recall", "--half-life", "0", "redis cache") == expected
        deadline = time.monotonic() + 60
        while service_pid(sock) in (None, os.getpid()) and time.monotonic() < deadline:
            time.sleep(0.1)  # until a service has put its own socket in place of that one
        assert run("recall", "--half-life", "0", "redis cache") == expected
        assert answered(resident) == 1  # the warm path came back
    finally:
        foreign.close()


def test_status_names_the_service_its_memory_use_and_callers(resident: Path) -> None:
    run("recall", "redis cache")
    pid = wait_for_service(resident)
    run("recall", "redis cache")
    info = warm.service_info()
    assert info is not None and info["pid"] == pid
    assert info["rss_bytes"] > 0 and info["since"] <= time.time()
    done = subprocess.run([FUNES, "status", "--json"], capture_output=True, timeout=120)
    service = json.loads(done.stdout)["service"]
    assert service["pid"] == pid and service["rss_bytes"] > 0
    human = subprocess.run([FUNES, "status"], capture_output=True, text=True, timeout=120).stdout
    assert f"service: pid {pid}" in human


async def _recall_once() -> tuple[dict[str, Any], str]:
    async with stdio_client(mcp_params()) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answer = dumped(await session.call_tool(*CALLS[0]))
        # While this server runs, doctor names it.
        done = subprocess.run([FUNES, "doctor", "--json"], capture_output=True, timeout=120)
        return answer, done.stdout.decode()


def test_a_server_whose_service_cannot_start_works_in_process_and_doctor_says_so(
    resident: Path,
) -> None:
    expected = anyio.run(_answers, mcp_params(FUNES_WARM_IDLE_S="0"))["results"][0]
    (resident / "run").write_text("not a folder")  # no socket can live here
    answer, doctor = anyio.run(_recall_once)
    assert answer == expected
    (check,) = [c for c in json.loads(doctor)["checks"] if c["name"] == "resident service"]
    assert check["status"] == "warn"
    assert "works in-process" in check["detail"]


async def _recall_stop_recall(home: Path) -> tuple[dict[str, Any], dict[str, Any], int]:
    async with stdio_client(mcp_params()) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = dumped(await session.call_tool(*CALLS[0]))
        stopped = wait_for_service(home)
        os.kill(stopped, signal.SIGSTOP)
        try:
            with anyio.fail_after(90):  # it waited forever before
                second = dumped(await session.call_tool(*CALLS[0]))
        finally:
            os.kill(stopped, signal.SIGCONT)
        return first, second, stopped


def test_a_session_whose_service_is_stopped_is_carried_over(resident: Path) -> None:
    first, second, _ = anyio.run(_recall_stop_recall, resident)
    assert second == first

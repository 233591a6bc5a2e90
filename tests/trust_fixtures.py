"""Real transcripts and the real CLI for the trust tests: what a user's files look like after
each fault, read back through the same commands a user runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

FUNES = [sys.executable, "-m", "funes.cli"]


def claude_transcript(
    session: str, turns: list[str], cwd: str = "/home/dev/shop", day: int = 1
) -> Path:
    """A Claude Code transcript under $CLAUDE_CONFIG_DIR: alternating user/assistant turns, all
    on 2026-01-<day>."""
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    path = claude / "projects" / cwd.replace("/", "-") / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines, parent = [], None
    for i, text in enumerate(turns):
        role = "user" if i % 2 == 0 else "assistant"
        uuid = f"{session}-u{i}"
        content = text if role == "user" else [{"type": "text", "text": text}]
        record = {
            "type": role,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": session,
            "timestamp": f"2026-01-{day:02d}T10:{i // 60:02d}:{i % 60:02d}Z",
            "cwd": cwd,
            "message": {"role": role, "content": content},
        }
        lines.append(json.dumps(record))
        parent = uuid
    path.write_text("\n".join(lines) + "\n")
    return path


def deeply_nested_line(depth: int = 3000) -> str:
    """One JSON object nested deeper than Python's parser can follow (RecursionError)."""
    return '{"a":' + "[" * depth + "]" * depth + "}"


def funes(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*FUNES, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env or os.environ.copy(),
        timeout=300,
    )


@contextmanager
def funes_home_on_a_small_disk(
    mount: Path, size: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A real disk of `size` (a tmpfs mounted at `mount`, unmounted after) holding FUNES_HOME;
    the test is skipped where mounting is not permitted."""
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    monkeypatch.setenv("FUNES_HOME", str(mount / "funes-home"))
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@contextmanager
def writer_lock_held_elsewhere() -> Iterator[subprocess.Popen[str]]:
    """Another process holding the memory's writer lock (as a long `funes index` would) for
    the block; it is killed after, which frees the lock."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom funes.index.lock import writer_lock\n"
            "with writer_lock():\n    print('held', flush=True)\n    time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def stored_texts() -> list[str]:
    from funes.index.store import ChunkStore

    return ChunkStore.open().scan(["text"]).column("text").to_pylist()


def files_holding(folder: Path, needle: str) -> list[str]:
    """Files under `folder` whose bytes contain `needle` in any case (the full-text index keeps
    words lowercased and stemmed: pass a stem)."""
    return [
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and needle.lower().encode() in path.read_bytes().lower()
    ]

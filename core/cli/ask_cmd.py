"""`funes ask <agent> QUESTION…`: one grounded, cited answer, written by a coding agent you have."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import TextIO

import click

from funes.integrations.ask import ASK_AGENTS, DEFAULT_K, AskError, ask

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_INTERVAL_S = 0.08


class StatusLine:
    """Progress on stderr: a spinner redrawn in place on a terminal, one plain line per status
    otherwise (so logs and CI output stay readable)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.status = ""
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def update(self, status: str) -> None:
        with self._lock:
            if status == self.status:
                return
            self.status = status
        if not self.live:
            print(f"funes: {status}", file=self.stream, flush=True)
        elif self._thread is None:
            self._thread = threading.Thread(target=self._spin, daemon=True)
            self._thread.start()

    def _spin(self) -> None:
        frame = 0
        while not self._stop.wait(SPINNER_INTERVAL_S):
            elapsed = time.monotonic() - self.started
            line = f"{SPINNER_FRAMES[frame % len(SPINNER_FRAMES)]} {self.status} ({elapsed:.0f}s)"
            self.stream.write(f"\r\x1b[2K{line}")
            self.stream.flush()
            frame += 1

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


@click.command("ask")
@click.argument("agent", type=click.Choice(ASK_AGENTS, case_sensitive=False))
@click.argument("question", nargs=-1, required=True)
@click.option(
    "--memory",
    "-m",
    "memory",
    metavar="MEMORY",
    multiple=True,
    help="Memory to ask (default: local); repeat it to ask several at once.",
)
@click.option(
    "-k",
    "--k",
    "k",
    type=click.IntRange(min=1),
    default=DEFAULT_K,
    show_default=True,
    help="Passages recalled and given to the agent.",
)
@click.option("--json", "as_json", is_flag=True, help="Print {answer, sources, agent, memory}.")
def command(
    agent: str, question: tuple[str, ...], memory: tuple[str, ...], k: int, as_json: bool
) -> None:
    """Answer QUESTION from a memory, in the words of AGENT, run through its own CLI.

    funes recalls the passages itself, then runs the agent's own CLI once, with its MCP servers,
    tools, plugins and hooks off, to write a short answer grounded only in those passages and
    naming the sessions it used. Only the answer is printed.

    \b
      funes ask claude why did we drop the redis cache
      funes ask codex "how is the release tagged" --memory acme/team-memory
    """
    status = StatusLine(sys.stderr)
    try:
        result = ask(
            agent,
            " ".join(question),
            memory=",".join(memory) or None,
            k=k,
            progress=status.update,
        )
    except AskError as error:
        raise click.ClickException(str(error)) from None
    finally:
        status.stop()
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(result.answer)

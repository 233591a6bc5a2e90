"""An agent's own CLI, run by an installer that registers funes through it (`claude plugin`,
`gemini extensions`): its failure named, and the agent's files it rewrote found."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

# How long an agent's own CLI may take to register or unregister funes (`claude plugin ...`).
AGENT_CLI_TIMEOUT_S = 120


def run_agent_cli(
    argv: list[str], shown: str, *, check: bool = True, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run an agent's own CLI with no terminal input; when it fails (and `check`), RuntimeError
    naming the command as `shown` and the last line it printed."""
    result = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=AGENT_CLI_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
    )
    if check and result.returncode != 0:
        output = (result.stderr.strip() or result.stdout.strip()).splitlines()
        detail = output[-1] if output else f"exit {result.returncode}"
        raise RuntimeError(f"`{shown}` failed: {detail}")
    return result


def digests(paths: list[Path]) -> dict[Path, str | None]:
    """Each file's sha256 (None when absent): taken before an agent's CLI rewrites its own
    files, so that `changed_since` can report the ones it changed."""
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None for p in paths}


def changed_since(before: dict[Path, str | None]) -> list[Path]:
    """The files of `before` (from `digests`) whose bytes are not what they were."""
    now = digests(list(before))
    return [path for path, digest in before.items() if now[path] != digest]

"""The `repo` facet: which `owner/name` repositories a session's working directory belongs to."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_REMOTE_URL = re.compile(r"^\S+\s+(\S+)\s+\((?:fetch|push)\)$")


def repo_identity(url: str) -> str:
    """`git@github.com:a/b.git`, `https://host/a/b/` → `a/b` (the last two path segments)."""
    url = url.strip()
    url = re.sub(r"^[a-z+]+://", "", url)
    url = re.sub(r"^[^@/]+@", "", url)  # user@ (ssh) or user:pass@
    url = url.replace(":", "/")
    url = url.rstrip("/")
    if url.endswith(".git"):
        url = url[:-4]
    parts = [p for p in url.split("/") if p]
    return "/".join(parts[-2:]) if len(parts) >= 3 else ""


def resolve_repo(workdir: str) -> str:
    """Space-joined sorted `owner/name` identities of the git remotes of `workdir`, or ''."""
    if not workdir or not Path(workdir).is_dir():
        return ""
    try:
        out = subprocess.run(
            ["git", "-C", workdir, "remote", "-v"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    identities = set()
    for line in out.splitlines():
        match = _REMOTE_URL.match(line.strip())
        if match:
            ident = repo_identity(match.group(1))
            if ident:
                identities.add(ident)
    return " ".join(sorted(identities))

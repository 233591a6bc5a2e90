"""Memory specs: a remote one (`ORG/REPO` shorthand or `hf://datasets/ORG/REPO[/prefix]`) or a
local folder."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RemoteSpec:
    repo_id: str  # ORG/REPO
    prefix: str = ""  # folder inside the repo holding the memory ("" = repo root)

    @property
    def uri(self) -> str:
        tail = f"/{self.prefix}" if self.prefix else ""
        return f"hf://datasets/{self.repo_id}{tail}"

    @property
    def cache_name(self) -> str:
        """A folder name for this remote: every char not ASCII-alnum, `-`, `.` becomes `_`."""
        return re.sub(r"[^A-Za-z0-9.-]", "_", self.uri.removeprefix("hf://"))

    def path_in_repo(self, relative: str) -> str:
        return f"{self.prefix}/{relative}" if self.prefix else relative


def parse_remote_spec(spec: str) -> RemoteSpec:
    spec = spec.strip()
    if spec.startswith("hf://"):
        rest = spec.removeprefix("hf://")
        if not rest.startswith("datasets/"):
            raise ValueError(f"{spec}: a funes memory is a dataset — use hf://datasets/ORG/REPO")
        parts = [p for p in rest.removeprefix("datasets/").split("/") if p]
    else:
        parts = [p for p in spec.split("/") if p]
    if len(parts) < 2:
        raise ValueError(f"{spec}: expected ORG/REPO or hf://datasets/ORG/REPO[/prefix]")
    return RemoteSpec(repo_id="/".join(parts[:2]), prefix="/".join(parts[2:]))


def is_remote_spec(spec: str | None) -> bool:
    if not spec:
        return False
    spec = spec.strip()
    if spec.startswith("hf://"):
        return True
    if spec.startswith(("/", ".", "~")) or os.path.exists(spec):
        return False
    return spec.count("/") == 1 and all(spec.split("/"))


def folder_memory(spec: str | None) -> Path | None:
    """`spec` as a local folder memory, or None when it is the default or a Hub memory."""
    if not spec or spec.strip() in ("", "local") or is_remote_spec(spec):
        return None
    return Path(spec).expanduser().absolute()

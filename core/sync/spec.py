"""Remote memory specs: `ORG/REPO` shorthand or `hf://datasets/ORG/REPO[/prefix]`."""

from __future__ import annotations

import re
from dataclasses import dataclass


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

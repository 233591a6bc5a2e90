"""Which memory a command reads: the local one, a folder, or a Hugging Face dataset.

Spec forms: empty/None/"local" → `$FUNES_HOME/memory`; `hf://datasets/ORG/REPO[/prefix]` or the
shorthand `ORG/REPO` → a remote memory (opened through `funes.sync.remote`); anything else → a
local folder holding a memory. What it returns and raises (OpenedMemory, MemoryUnavailable) is
declared in `funes.index.store`, below both this module and the remote opener.
"""

from __future__ import annotations

import os
from pathlib import Path

from funes.index.store import MemoryUnavailable, OpenedMemory
from funes.memory_spec import is_remote_spec
from funes.paths import local_memory_dir


def default_spec() -> str | None:
    """`$FUNES_MEMORY` names the memory read when a command is given none."""
    return os.environ.get("FUNES_MEMORY", "").strip() or None


def is_default_spec(spec: str | None) -> bool:
    """Whether `spec` names the memory a command reads when it is given none (so a `funes get`
    printed for one of its hits needs no `--memory`)."""
    default = default_spec() or "local"
    return ((spec or "").strip() or default) == default


def open_memory(spec: str | None = None) -> OpenedMemory:
    """Open the memory named by `spec` for reading (raises MemoryNotFound when there is none)."""
    from funes.index.store import ChunkStore

    spec = (spec or "").strip() or default_spec()
    if spec in (None, "", "local"):
        path = local_memory_dir()
        return OpenedMemory(store=ChunkStore.open(path), label=str(path))
    if is_remote_spec(spec):
        from funes.sync.remote import open_remote_memory

        return open_remote_memory(spec)
    path = Path(spec).expanduser().resolve()
    from funes.index.store import memory_exists

    if not memory_exists(path):  # a folder the user named: say so, not "run funes add"
        raise MemoryUnavailable(
            f"no memory at {path}: check the path (a folder `funes index` or `funes push` "
            "made), or leave out --memory to read the local memory"
        )
    return OpenedMemory(store=ChunkStore.open(path), label=str(path))

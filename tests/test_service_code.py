"""The resident service never answers with code older than what is on disk (issue 33)."""

from __future__ import annotations

import os
import sys
import time
import types
from pathlib import Path

from funes.cli.warm_service import _Code


def _module(path: Path) -> types.ModuleType:
    module = types.ModuleType("funes._code_probe")
    module.__file__ = str(path)
    return module


def test_a_module_written_after_the_service_started_counts_as_changed(tmp_path: Path) -> None:
    """A module a call imports lazily is first seen after it was loaded; if its file was
    edited in between, the service must still notice (an edit during a benchmark run once
    kept a service answering with the code from before it)."""
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text("")
    os.utime(old, ns=(time.time_ns() - 10**10,) * 2)
    code = _Code()
    assert not code.changed()
    sys.modules["funes._code_probe"] = _module(old)
    try:
        assert not code.changed()  # imported, untouched since the start
        new.write_text("")
        os.utime(new, ns=(time.time_ns() + 10**9,) * 2)
        sys.modules["funes._code_probe"] = _module(new)
        assert code.changed()
    finally:
        del sys.modules["funes._code_probe"]

"""Importing lancedb without the half second it spends on a REST client funes never uses.

`import lancedb` pulls in `lance_namespace`, which imports a few models from the generated
`lance_namespace_urllib3_client` package, whose `__init__` eagerly builds every REST API class
(pydantic validators for hundreds of endpoints). That is most of lancedb's import time, and a
cold `funes recall` pays it. Registering the package without running its `__init__` lets the
models still import normally (their submodules load on demand) while the unused API classes are
never built. If a lancedb release ever needs those names at import, the registration is undone
and lancedb is imported the ordinary way.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import threading
import types
from typing import Any

_REST_CLIENT = "lance_namespace_urllib3_client"


_import_lock = threading.Lock()


def without_source_paths(text: str) -> str:
    """`text` cut before the Rust source location Lance appends to its errors (`, /rustc/…` or
    a crate's `, /…/.cargo/registry/src/…`): it means nothing to a user."""
    return re.split(r",\s*/\S*(?:rustc|\.cargo|\.rs:)", text)[0]


def import_lancedb() -> Any:
    # lancedb logs a Rust WARN on every projected query without a score column.
    os.environ.setdefault("LANCEDB_LOG", "error")
    # Serialised: a second thread must wait for the import, never see a half-built module
    # (the MCP server warms up in one thread while it answers in another).
    with _import_lock:
        if "lancedb" in sys.modules:
            return importlib.import_module("lancedb")
        registered = _register_rest_client_lazily()
        try:
            return importlib.import_module("lancedb")
        except ImportError:
            if not registered:
                raise
            stale = ("lancedb", _REST_CLIENT, "lance_namespace")
            for name in [m for m in sys.modules if m.split(".")[0] in stale]:
                del sys.modules[name]
            return importlib.import_module("lancedb")


def _register_rest_client_lazily() -> bool:
    if _REST_CLIENT in sys.modules:
        return False
    spec = importlib.util.find_spec(_REST_CLIENT)
    if spec is None or not spec.submodule_search_locations:
        return False
    package = types.ModuleType(_REST_CLIENT)
    package.__path__ = list(spec.submodule_search_locations)
    package.__file__ = spec.origin
    package.__spec__ = spec
    package.__package__ = _REST_CLIENT
    sys.modules[_REST_CLIENT] = package
    return True

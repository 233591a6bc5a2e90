"""Imports only go down the layers, so each layer can be read (and tested) without the ones above.

Every `import` counts, the deferred ones inside functions too: a lazy import still makes the
lower layer depend on the upper one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The installed package's folders (setup.py): package → folder.
ROOTS = {"funes": "core", "funes.plugins": "plugins", "funes.installers": "installers"}

# Top to bottom. A module may import its own layer and the layers below it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("entry", ("funes.entry",)),
    ("cli", ("funes.cli",)),
    ("inspect", ("funes.inspect",)),  # doctor and `funes ui`: they look at every layer below
    # what the agents talk to (hook, MCP server, ask) and what wires funes into them
    ("integrations", ("funes.integrations", "funes.installers", "funes.plugins")),
    ("retrieve/sync", ("funes.retrieve", "funes.sync", "funes.project")),
    ("index", ("funes.index",)),
    ("traces", ("funes.traces",)),
    # `funes` itself: its __version__
    (
        "base",
        (
            "funes.model",
            "funes.paths",
            "funes.lance",
            "funes.memory_spec",
            "funes.safe_text",
            "funes.list_cursor",
            "funes",
        ),
    ),
)

# Known upward imports, each with why it stays for now. Keep this short.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}

# Known import cycles (as sets of modules), each with why it stays for now.
ALLOWED_CYCLES: dict[frozenset[str], str] = {}


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package, folder in ROOTS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The funes modules `path` imports (a `from m import name` of a submodule names it)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [
                f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in known
                else node.module
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target in known:
                yield target, node.lineno


def layer_of(module: str) -> int:
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            # `funes` itself (its __version__) is base; a new module directly under it is in
            # no layer until LAYERS says where it belongs.
            inside = prefix != "funes" and module.startswith(prefix + ".")
            if (module == prefix or inside) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        for target, _ in imports(path, known):
            if target != module and not module.startswith(target + "."):
                edges[module].add(target)
    return edges


def test_imports_only_go_down() -> None:
    known = modules()
    upward = []
    for module, path in known.items():
        for target, line in imports(path, known):
            if layer_of(target) < layer_of(module) and (module, target) not in ALLOWED_UPWARD:
                where = path.relative_to(REPO)
                upward.append(
                    f"{where}:{line}: {module} ({LAYERS[layer_of(module)][0]}) imports "
                    f"{target} ({LAYERS[layer_of(target)][0]})"
                )
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_the_allowed_upward_imports_still_exist() -> None:
    edges = graph()
    stale = [pair for pair in ALLOWED_UPWARD if pair[1] not in edges.get(pair[0], set())]
    assert not stale, f"no longer imported, drop from ALLOWED_UPWARD: {stale}"


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    found = cycles(graph())
    unexpected = [sorted(c) for c in found if c not in ALLOWED_CYCLES]
    assert not unexpected, f"import cycles: {unexpected}"
    stale = [sorted(c) for c in ALLOWED_CYCLES if c not in found]
    assert not stale, f"no longer a cycle, drop from ALLOWED_CYCLES: {stale}"


# What only the resident service may load: the memory (lancedb, arrow), numpy and the models.
HEAVY = ("lancedb", "pyarrow", "numpy", "torch", "tokenizers", "transformers")
# ... and what only it needs to speak MCP.
THIN_NEVER = (*HEAVY, "mcp", "mcp_types", "pydantic", "pydantic_core", "anyio")


def test_the_thin_mcp_server_loads_no_memory() -> None:
    """`funes mcp` is a pipe to the resident service's session: the standard library alone, so a
    session's server stays small however many sessions run (the service holds the memory and
    the MCP SDK)."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from funes.cli.mcp_cmd import command\n"
        "from funes.integrations import thin_mcp\n"
        "thin_mcp.Pipe(None)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {THIN_NEVER!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"

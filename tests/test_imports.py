"""The package's import graph: every module imports on its own, and there is no cycle.

A cycle makes the import order of two modules decide which names exist, so a module that
works when imported after another fails when imported first. The graph is read from the
source: every import, including those deferred into functions (a deferred import only
hides a cycle until the day someone moves it); ``TYPE_CHECKING`` blocks are excluded.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "generator"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _top_level_imports(path: Path, name: str) -> set[str]:
    """Modules of the package that ``path`` imports, at import time or later."""
    tree = ast.parse(path.read_text("utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Import):
                found.update(a.name for a in sub.names)
            elif isinstance(sub, ast.ImportFrom):
                base = sub.module or ""
                if sub.level:
                    anchor = package.rsplit(".", sub.level - 1)[0] if sub.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                found.add(base)
                found.update(f"{base}.{a.name}" for a in sub.names)
    return {m for m in found if m in MODULES and m != name}


@functools.cache
def _graph() -> dict[str, set[str]]:
    """The package's import graph (read on first use: every xdist worker collects this
    module, one runs it)."""
    return {name: _top_level_imports(path, name) for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    """One import cycle of the package, or None."""
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            # A package's own __init__ importing its submodules is not a cycle with them.
            if node.startswith(f"{nxt}."):
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_package_has_no_import_cycle() -> None:
    cycle = _cycle()
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The check above can fail: a made-up edge closing a loop is found."""
    a, b = "generator.hashing", "generator.canonical"
    graph = _graph()
    saved = {a: set(graph[a]), b: set(graph[b])}
    graph[a].add(b)
    graph[b].add(a)
    try:
        assert _cycle() is not None
    finally:
        graph.update(saved)


# Run in a fresh interpreter: the third-party libraries the package uses are imported once
# (no module of the package may be loaded yet), then the ``preloaded`` modules of the
# package; then each module is imported first in a forked child. Importing ``a.b.c``
# first imports ``a.b`` first (its ``__init__`` runs to the end, whatever it imports) and
# only then ``a.b.c``, so a child forked from the process that imported ``a.b`` first is
# in exactly the state of importing ``a.b.c`` first. The children form the package's tree:
# each package's child imports it, then forks one grandchild per submodule, so each
# module pays only for what it adds to its package (the old one child per module paid
# for the whole chain again each time), and siblings never see each other's imports.
# Two passes (``_failing_first``): the file formats (``generator.models``, the base every
# other module builds on, whose pydantic classes cost about a second to build) with
# nothing of the package loaded; then every other module with the formats preloaded, as
# importing it alone would load them first. (A module that used a format module by
# attribute without importing it would pass the second pass; the graph test reads every
# import.) A package that fails makes every module under it fail the same way.
_IMPORT_EACH = """
import importlib, os, sys
top = sys.argv[1]
for lib in filter(None, sys.argv[2].split(",")):
    try:
        importlib.import_module(lib)
    except ImportError:  # a name in sys.modules that is no importable module
        pass
assert not [m for m in sys.modules if m == top or m.startswith(top + ".")]
for name in filter(None, sys.argv[3].split(",")):
    importlib.import_module(name)
wanted = sorted(set(sys.argv[4:]))
children = {}
nodes = {".".join(w.split(".")[:n]) for w in wanted for n in range(1, w.count(".") + 2)}
for name in sorted(nodes):
    children.setdefault(name.rpartition(".")[0], []).append(name)

def visit(node):
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(node)
        except BaseException as exc:
            said = f"{type(exc).__name__}: {exc}"
            for name in wanted:
                if name == node:
                    os.write(1, f"{name} {said}\\n".encode())
                elif name.startswith(node + "."):
                    os.write(1, f"{name} {said} (importing {node} first)\\n".encode())
            os._exit(0)
        for child in children.get(node, ()):
            visit(child)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status:
        os.write(1, f"{node} exited with status {status}\\n".encode())

for node in children.get("", ()):
    visit(node)
"""

_LIBRARIES = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
top = {m.partition(".")[0] for m in sys.modules}
print(",".join(sorted(t for t in top if t != "generator" and not t.startswith("_"))))
"""


def _python(script: str, *args: str, cwd: Path = PACKAGE.parent) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        timeout=1800,  # a loaded machine; a quiet one takes well under a minute
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


BASE = ("generator", "generator.models")
"""The package modules the second pass preloads, with every module under them."""


@functools.cache
def _libraries() -> str:
    """The third-party libraries the whole package imports (read once per test process:
    importing every module to list them costs seconds)."""
    return _python(_LIBRARIES, *sorted(MODULES))


def _failing_first(names: list[str]) -> str:
    """Modules that fail when imported first, one line each with the error."""
    libraries = _libraries()
    base = [n for n in names if n in BASE or n.startswith("generator.models.")]
    rest = [n for n in names if n not in base]
    preload = ",".join(sorted(n for n in MODULES if n in BASE or n.startswith("generator.models.")))
    first = _python(_IMPORT_EACH, "generator", libraries, "", *base) if base else ""
    second = _python(_IMPORT_EACH, "generator", libraries, preload, *rest) if rest else ""
    return "\n".join(part for part in (first, second) if part)


def test_every_module_imports_on_its_own() -> None:
    failing = _failing_first(sorted(MODULES))
    if failing:
        pytest.fail("modules that fail when imported first:\n" + failing)


def test_a_module_that_fails_when_imported_first_is_named() -> None:
    """The check above can fail: a module that does not import is reported by name."""
    assert _failing_first(["generator.no_such_module"]).startswith(
        "generator.no_such_module ModuleNotFoundError"
    )


def test_each_module_is_imported_first_in_a_state_of_its_own(tmp_path: Path) -> None:
    """The check above can fail on order: a module that only works after a sibling loaded
    what it uses is named, however many siblings before it loaded that, at any depth; a
    module its package's ``__init__`` already imports is checked as part of it."""
    files = {
        "pkg/__init__.py": "",
        "pkg/a_loads_helper.py": "import pkg.helper\n",
        "pkg/helper.py": "VALUE = 1\n",
        "pkg/sneaky.py": "import pkg\n\nVALUE = pkg.helper.VALUE\n",
        "pkg/sub/__init__.py": "from pkg.sub import eager\n",
        "pkg/sub/a_loads_helper.py": "import pkg.helper\n",
        "pkg/sub/eager.py": "import pkg.helper\n",
        "pkg/sub/relies_on_eager.py": "import pkg\n\nVALUE = pkg.helper.VALUE\n",
        "pkg/sub/sneaky.py": "import pkg\n\nVALUE = pkg.sub.a_loads_helper\n",
        "pkg/broken/__init__.py": "raise RuntimeError('broken package')\n",
        "pkg/broken/fine.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, "utf-8")
    names = [
        rel.removesuffix("/__init__.py").removesuffix(".py").replace("/", ".") for rel in files
    ]
    failing = _python(_IMPORT_EACH, "pkg", "", "", *names, cwd=tmp_path).splitlines()
    assert failing == [
        "pkg.broken RuntimeError: broken package",
        "pkg.broken.fine RuntimeError: broken package (importing pkg.broken first)",
        "pkg.sneaky AttributeError: module 'pkg' has no attribute 'helper'",
        "pkg.sub.sneaky AttributeError: module 'pkg.sub' has no attribute 'a_loads_helper'",
    ]

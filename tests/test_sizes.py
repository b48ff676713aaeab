"""The package stays readable: no module over 400 lines, no function over 60."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "generator"
MAX_MODULE, MAX_FUNCTION = 400, 60


def test_no_module_or_function_is_too_long() -> None:
    modules, functions = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text("utf-8")
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if len(source.splitlines()) > MAX_MODULE:
            modules.append(rel)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION:
                    functions.append(f"{rel}:{node.name} ({length} lines)")
    assert not modules, f"modules over {MAX_MODULE} lines: {modules}"
    assert not functions, f"functions over {MAX_FUNCTION} lines: {functions}"

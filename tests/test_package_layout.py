"""The package's size guide, kept by reading the source (AST only: nothing is imported).

At most ten modules at the top level (the rest live in packages named for what they do), no
module over 400 lines but the PDF segmenter, whose line shapes read best together, and no
function over 80 lines but Alembic's migrations, which are one schema step each.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "claims_crew"
MAX_TOP_LEVEL = 10
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
LONG_MODULES = {"policy/segment.py"}


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """Each function (or method) over `limit` lines, with its length."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def sources() -> dict[str, str]:
    return {
        p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_at_most_ten_modules_at_the_top_level() -> None:
    top = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= MAX_TOP_LEVEL, sorted(top)


def test_no_module_is_over_the_size_guide() -> None:
    long = {
        name: text.count("\n")
        for name, text in sources().items()
        if name not in LONG_MODULES and text.count("\n") > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_the_size_guide() -> None:
    long = {
        name: found
        for name, text in sources().items()
        if "/migrations/" not in name and (found := long_functions(text))
    }
    assert long == {}


def test_a_long_function_is_found() -> None:
    body = "".join(f"    x = {i}\n" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}") == [("f", MAX_FUNCTION_LINES + 1)]
    assert long_functions("def f():\n    return 1\n") == []

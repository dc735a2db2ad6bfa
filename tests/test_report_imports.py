"""No import circle among report/'s modules (AST only: nothing is imported).

html.py and its usage section once imported each other; a circle like that only works as long
as one side imports late, inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

REPORT = ROOT / "src" / "claims_crew" / "report"
PREFIX = "claims_crew.report"


def report_imports(path: Path, names: set[str]) -> set[str]:
    """The modules of report/ (by file stem) that the module at `path` imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from claims_crew.report import charts` imports the module charts.
            modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if module.startswith(PREFIX + ".") and len(parts) > 2 and parts[2] in names:
                found.add(parts[2])
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each circle found by a depth-first walk, as the path that closes it."""
    found: list[list[str]] = []
    done: set[str] = set()

    def walk(name: str, path: list[str]) -> None:
        if name in path:
            found.append([*path[path.index(name) :], name])
            return
        if name in done:
            return
        for nxt in sorted(graph[name]):
            walk(nxt, [*path, name])
        done.add(name)

    for name in sorted(graph):
        walk(name, [])
    return found


def test_circles_are_found() -> None:
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b", "a"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_report_imports_itself_back() -> None:
    files = {p.stem: p for p in REPORT.glob("*.py") if p.stem != "__init__"}
    graph = {name: report_imports(path, set(files)) - {name} for name, path in files.items()}
    assert graph["html"]  # the walk reads the imports it should
    assert circles(graph) == []

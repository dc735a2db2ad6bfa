"""The tests' own layout: test files share code only through tests/support/.

A test file that imports another test file runs that file's module-level code and, with it, can
pull its tests and fixtures into a second module; one that imports conftest.py imports it a second
time under another name. Both are read here from the source (AST only: nothing is imported).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

TESTS = ROOT / "tests"


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth, by its absolute name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            # `from tests import test_x` names a module in the import's names.
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def forbidden(path: Path) -> list[str]:
    """The test files and the conftest.py that a file imports, by module name."""
    found: set[str] = set()
    for module in imported_modules(path):
        top, _, rest = module.partition(".")
        name = rest.split(".")[0]
        if top == "tests" and (name == "conftest" or name.startswith("test_")):
            found.add(f"tests.{name}")
    return sorted(found)


def test_no_test_module_imports_a_test_file_or_conftest() -> None:
    files = sorted(p for p in TESTS.rglob("*.py") if p.name != "conftest.py")
    assert any(p.name.startswith("test_") for p in files)
    wrong = {str(path.relative_to(ROOT)): forbidden(path) for path in files}
    assert {path: modules for path, modules in wrong.items() if modules} == {}


def test_the_rule_sees_each_way_of_importing(tmp_path: Path) -> None:
    source = tmp_path / "test_sample.py"
    source.write_text(
        "import tests.conftest\n"
        "from tests.test_browser import free_port\n"
        "from tests import test_workers\n"
        "from tests.support.paths import ROOT\n"
        "def f() -> None:\n"
        "    from tests.conftest import ROOT\n",
        encoding="utf-8",
    )
    assert forbidden(source) == [
        "tests.conftest",
        "tests.test_browser",
        "tests.test_workers",
    ]

"""Ideas that have one home in the package, read from the source (AST only: nothing is imported).

A request body is limited in one place for the API and the review page alike
(api/body_limit.py): one counter of the bytes streamed in, the caps of every route declared
there as data, one error for a body over its cap. Each side may answer that error in its own
words, but neither keeps a counter, a cap or an error of its own.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from tests.support.paths import ROOT

PACKAGE = ROOT / "src" / "claims_crew"
BODY_LIMIT = "api/body_limit.py"


# Where the package answers HTTP requests: the API and the review page.
HTTP_EDGES = ("api", "review")


def trees(*parts: str) -> Iterator[tuple[str, ast.Module]]:
    """Each module of these parts of the package (every module, with none), by its path."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if parts and path.relative_to(PACKAGE).parts[0] not in parts:
            continue
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the string constants that are docstrings (of the module, classes, functions)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def strings_in_code(tree: ast.Module) -> list[str]:
    """Every string constant of a module but its docstrings."""
    skipped = docstrings(tree)
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in skipped
    ]


def counts_a_body(tree: ast.Module) -> bool:
    """Whether a module reads an ASGI request message's `more_body`: it counts a body."""
    return "more_body" in strings_in_code(tree)


def declares_a_cap(tree: ast.Module) -> bool:
    """Whether a module assigns a name of a body's cap (`..._BODY_BYTES`) at its top."""
    names = [
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    return any(name.endswith("_BODY_BYTES") for name in names)


def defines_a_too_large_error(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ClassDef) and re.search(r"TooLarge$", node.name)
        for node in ast.walk(tree)
    )


def test_request_bodies_are_counted_capped_and_refused_in_one_module() -> None:
    found = {
        check.__name__: [name for name, tree in trees(*HTTP_EDGES) if check(tree)]
        for check in (counts_a_body, declares_a_cap, defines_a_too_large_error)
    }
    assert found == {
        "counts_a_body": [BODY_LIMIT],
        "declares_a_cap": [BODY_LIMIT],
        "defines_a_too_large_error": [BODY_LIMIT],
    }


def test_the_checks_see_a_second_counter_cap_and_error() -> None:
    source = (
        "FORM_BODY_BYTES = 1\n"
        "class PayloadTooLarge(Exception):\n"
        '    """A docstring naming more_body is no counter."""\n'
        "def count(message):\n"
        '    return message.get("more_body", False)\n'
    )
    tree = ast.parse(source)
    assert counts_a_body(tree) and declares_a_cap(tree) and defines_a_too_large_error(tree)
    quiet = ast.parse('"""Reads more_body (a docstring)."""\nCAP = 1\n')
    assert not (counts_a_body(quiet) or declares_a_cap(quiet) or defines_a_too_large_error(quiet))

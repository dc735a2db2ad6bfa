"""Ideas that have one home in the package, read from the source (AST only: nothing is imported).

A request body is limited in one place for the API and the review page alike
(api/body_limit.py): one counter of the bytes streamed in, the caps of every route declared
there as data, one error for a body over its cap. Each side may answer that error in its own
words, but neither keeps a counter, a cap or an error of its own.

The words printed before a clause's label ("Section", "Paragraph", "Exclusion" …) are listed
once, in the one reader of clause references (policy/ids.py), each with what the readers of
endorsements' targets make of it; no other module of policy/ writes out a list of them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from claims_crew.policy.ids import REFERENCE_WORDS
from claims_crew.policy.kinds import CLAUSE_KINDS
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


# The one reader of clause references: the words printed before a clause's label, in one list.
REFERENCE_READER = "policy/ids.py"
# The names of the kinds of clause are words of their own (a page's colours, a kind's rules).
KINDS = frozenset(CLAUSE_KINDS)


def word_lists(tree: ast.Module, words: frozenset[str]) -> list[int]:
    """The lines of the sets, dicts, tuples and lists a module writes out that hold three or
    more of these words (in any case), the names of clause kinds aside: a list of its own."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            items: list[ast.expr | None] = list(node.keys)
        elif isinstance(node, ast.Set | ast.Tuple | ast.List):
            items = list(node.elts)
        else:
            continue
        held = {
            item.value.lower()
            for item in items
            if isinstance(item, ast.Constant) and isinstance(item.value, str)
        }
        if len(held & words - KINDS) >= 3:
            found.append(node.lineno)
    return found


def test_clause_reference_words_are_listed_once() -> None:
    words = frozenset(w.word for w in REFERENCE_WORDS)
    listing = {
        name: lines
        for name, tree in trees("policy")
        if name != REFERENCE_READER and (lines := word_lists(tree, words))
    }
    assert listing == {}


def test_a_list_of_reference_words_is_seen() -> None:
    words = frozenset({"exclusion", "exclusions", "section", "part", "clause"})
    seen = 'A = {"Exclusions": 1, "section": 2, "clause": 3}\nB = ("section", "part", "Clause")\n'
    assert word_lists(ast.parse(seen), words) == [1, 2]
    # Two words, kinds' names, or words in a pattern are no list of reference words.
    unseen = 'C = ("Section", "Part")\nD = ["exclusion", "exclusions", "part"]\n'
    unseen += 'E = "section|part|clause"\n'
    assert word_lists(ast.parse(unseen), words) == []

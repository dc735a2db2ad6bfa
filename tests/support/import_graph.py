"""The package's import graph between its parts, read from the source (AST only: nothing is
imported), and the loops in it.

A part is a sub-package of src/claims_crew or a module at its top. An arrow a -> b says that some
module of a imports something of b, anywhere in the module: at the top, inside a function, under
TYPE_CHECKING. A loop is a path of arrows that comes back to where it started, of any length:
two parts that import each other are the shortest.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Mapping

from tests.support.paths import ROOT

PACKAGE = ROOT / "src" / "claims_crew"

# (from part, to part) -> one import that draws the arrow: "path:line module".
Arrows = dict[tuple[str, str], str]


def imported(source: str) -> list[tuple[int, str]]:
    """Every absolute module a source imports, with its line: at the top, in functions, anywhere."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def part_of(relative: str) -> str:
    """The part of the package a module belongs to: its package, or itself at the top."""
    first = relative.split("/")[0]
    return first.removesuffix(".py")


def package_sources() -> dict[str, str]:
    """Every module of the package: its path under src/claims_crew -> its source."""
    return {
        path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def parts(sources: Mapping[str, str]) -> set[str]:
    """The parts the modules make up (the package's own __init__.py is the whole, not a part)."""
    return {part_of(relative) for relative in sources} - {"__init__"}


def arrows(sources: Mapping[str, str]) -> Arrows:
    """Each arrow between two parts, with the first import (by path, then line) that draws it."""
    witness: Arrows = {}
    for relative, source in sorted(sources.items()):
        for line, module in sorted(imported(source)):
            names = module.split(".")
            if names[0] == "claims_crew" and len(names) > 1 and names[1] != part_of(relative):
                witness.setdefault((part_of(relative), names[1]), f"{relative}:{line} {module}")
    return witness


def loops(found: Arrows) -> list[str]:
    """One loop for each knot of parts that reach one another, named part by part from the
    knot's first part (by name) along a shortest way back to it, each arrow's import after it:
    `a -> b -> c -> a: <a's import of b>; <b's import of c>; <c's import of a>`."""
    named = []
    for knot in _knots(found):
        start = min(knot)
        path = _shortest_way_back(found, knot, start)
        steps = list(zip(path, [*path[1:], start], strict=True))
        named.append(" -> ".join([*path, start]) + ": " + "; ".join(found[step] for step in steps))
    return sorted(named)


def _next(found: Arrows, part: str, within: set[str]) -> list[str]:
    return sorted(b for a, b in found if a == part and b in within)


def _knots(found: Arrows) -> list[set[str]]:
    """The strongly connected sets of more than one part: each holds at least one loop."""
    nodes = sorted({part for arrow in found for part in arrow})
    reach = {node: _reachable(found, node) for node in nodes}
    knots: list[set[str]] = []
    for node in nodes:
        knot = {other for other in reach[node] if node in reach[other]}
        if len(knot) > 1 and knot not in knots:
            knots.append(knot)
    return knots


def _reachable(found: Arrows, start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in _next(found, todo.pop(), {b for _, b in found}):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _shortest_way_back(found: Arrows, knot: set[str], start: str) -> list[str]:
    """The parts of a shortest loop from `start` inside `knot`, `start` first (breadth first)."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        part = queue.popleft()
        for nxt in _next(found, part, knot):
            if nxt == start:
                path = [part]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return path[::-1]
            if nxt not in came_from:
                came_from[nxt] = part
                queue.append(nxt)
    raise AssertionError(f"{start} is in a knot with no way back: {sorted(knot)}")

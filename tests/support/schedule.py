"""The order in which pytest-xdist hands the test files to its workers.

With `--dist loadfile` and `--no-loadscope-reorder` (pyproject.toml), a worker that runs short
takes the next file in the order the tests were collected. xdist's own order, by each file's
count of tests, handed the files of a few long tests (the local model, a service's outage)
out last, and each then ran on alone after the other workers had finished: a tail of about
45 s on the 2,800 tests' timings, replayed through xdist's rules. Handed out first, they run
while the other workers go through the many short files."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

Item = TypeVar("Item")


def slowest_files_first(
    items: Sequence[Item], file_of: Callable[[Item], Hashable], is_slow: Callable[[Item], bool]
) -> list[Item]:
    """`items` with the files holding the most slow tests first, then those with the most
    tests, then as they came; each file's tests together and in their order."""
    slow: Counter[Hashable] = Counter()
    tests: Counter[Hashable] = Counter()
    first: dict[Hashable, int] = {}
    for index, item in enumerate(items):
        file = file_of(item)
        tests[file] += 1
        slow[file] += is_slow(item)
        first.setdefault(file, index)

    def rank(item: Item) -> tuple[int, int, int]:
        file = file_of(item)
        return (-slow[file], -tests[file], first[file])

    return sorted(items, key=rank)  # stable: a file's tests keep their order

"""The order the test files go to pytest-xdist's workers (tests/support/schedule.py)."""

from __future__ import annotations

from tests.support.schedule import slowest_files_first

# (file, test, slow)
ITEMS = [
    ("test_many.py", "a", False),
    ("test_many.py", "b", False),
    ("test_many.py", "c", False),
    ("test_few_long.py", "model", True),
    ("test_few_long.py", "outage", True),
    ("test_mixed.py", "x", False),
    ("test_mixed.py", "y", True),
    ("test_mixed.py", "z", False),
    ("test_one.py", "only", False),
]


def order(items: list[tuple[str, str, bool]]) -> list[str]:
    ordered = slowest_files_first(items, lambda item: item[0], lambda item: item[2])
    return [f"{file}::{test}" for file, test, _ in ordered]


def test_the_files_with_most_slow_tests_go_first_then_the_largest() -> None:
    assert order(ITEMS) == [
        "test_few_long.py::model",
        "test_few_long.py::outage",
        "test_mixed.py::x",
        "test_mixed.py::y",
        "test_mixed.py::z",
        "test_many.py::a",
        "test_many.py::b",
        "test_many.py::c",
        "test_one.py::only",
    ]


def test_a_file_s_tests_stay_together_and_in_order_however_they_come() -> None:
    shuffled = [ITEMS[i] for i in (8, 7, 0, 3, 5, 1, 4, 6, 2)]
    ordered = order(shuffled)
    files = [name.split("::")[0] for name in ordered]
    # Each file is one run of consecutive items, and keeps its own tests' order.
    assert files == sorted(files, key=files.index)
    assert [n for n in ordered if n.startswith("test_mixed.py")] == [
        "test_mixed.py::z",
        "test_mixed.py::x",
        "test_mixed.py::y",
    ]


def test_files_alike_keep_the_order_they_came_in() -> None:
    alike = [("b.py", "1", True), ("a.py", "1", True), ("b.py", "2", False), ("a.py", "2", False)]
    assert order(alike) == ["b.py::1", "b.py::2", "a.py::1", "a.py::2"]

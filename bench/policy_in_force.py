"""Benchmark: what reading a policy as issued costs beside reading its form alone.

A claim that names its issued policy is decided on the wording in force on its date of loss:
the form with every endorsement effective that day applied (policy/in_force.py). That wording
is built once, then kept as an index of its own. For each issued policy in
`policies/issued/`, on the last day of its period (every endorsement in force), this measures
in one run, back to back so that a noisy shared machine hits both sides alike:

- cold: the form's index built into an empty cache, then the wording in force built on top of
  it (its endorsements' PDFs read, their changes read and applied, the index written);
- warm: opening the form, and opening the wording in force, each in a fresh library over the
  filled cache (what every new process pays), median of the runs; the ratio in force / form;
- lookup and search: `lookup` of every clause id and `search` of a few words on each, median
  microseconds; the ratio in force / form.

It only prints. Run it from the project root:

    uv run python bench/policy_in_force.py
    uv run python bench/policy_in_force.py --small   # one run each: CI's check that it runs
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary

POLICIES = Path("policies")
WORDS = ("water", "hot tub", "emergency repairs", "theft", "ride sharing", "deductible")


def timed(action: Callable[[], object]) -> float:
    began = time.perf_counter()
    action()
    return time.perf_counter() - began


def median_of(runs: int, action: Callable[[], object]) -> float:
    return statistics.median(timed(action) for _ in range(runs))


def per_call_us(doc: PolicyDocument) -> tuple[float, float]:
    """Median microseconds of a lookup of every clause id, and of a search of each of WORDS."""
    lookups = [timed(lambda c=c: doc.lookup(c.id)) for c in doc.clauses]
    searches = [timed(lambda w=w: doc.search(w)) for w in WORDS]
    return statistics.median(lookups) * 1e6, statistics.median(searches) * 1e6


def measure(number: str, runs: int, console: Console) -> list[str]:
    with tempfile.TemporaryDirectory() as cache:
        library = PolicyLibrary(POLICIES, Path(cache))
        issued = library.issued[number]
        on = issued.period.end
        form_cold = timed(lambda: library.open(issued.form))
        in_force_cold = timed(lambda: library.in_force(issued.form, number, on))

        def warm_form() -> object:
            return PolicyLibrary(POLICIES, Path(cache)).open(issued.form)

        def warm_in_force() -> object:
            return PolicyLibrary(POLICIES, Path(cache)).in_force(issued.form, number, on)

        # Alternated run by run, so a burst of load lands on both sides.
        form_warm, in_force_warm = [], []
        for _ in range(runs):
            form_warm.append(timed(warm_form))
            in_force_warm.append(timed(warm_in_force))
        form_doc = library.open(issued.form)
        doc = library.in_force(issued.form, number, on)
        form_lookup, form_search = per_call_us(form_doc)
        lookup, search = per_call_us(doc)
    fw, iw = statistics.median(form_warm), statistics.median(in_force_warm)
    return [
        f"{number} {on}",
        f"{len(issued.in_force_on(on))} / {len(doc.amendments)}",
        f"{form_cold * 1000:.0f} / {in_force_cold * 1000:.0f}",
        f"{fw * 1000:.1f} / {iw * 1000:.1f} ({iw / fw:.2f}×)",
        f"{form_lookup:.1f} / {lookup:.1f} ({lookup / form_lookup:.2f}×)",
        f"{form_search:.0f} / {search:.0f} ({search / form_search:.2f}×)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="one run each (CI)")
    parser.add_argument("--runs", type=int, default=9, help="warm opens of each (default 9)")
    args = parser.parse_args()
    runs = 1 if args.small else args.runs
    console = Console(width=110)  # six columns of figures: wider than a default pipe
    table = Table(title=f"Policies as issued: form / wording in force, median of {runs}")
    for column in (
        "issued policy, day",
        "endorsements / clauses changed",
        "cold build ms",
        "warm open ms",
        "lookup µs",
        "search µs",
    ):
        table.add_column(column)
    for number in sorted(PolicyLibrary(POLICIES).issued):
        table.add_row(*measure(number, runs, console))
    console.print(table)


if __name__ == "__main__":
    main()

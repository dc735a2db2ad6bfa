"""Benchmark: the endorsement reader on real endorsements it had never seen.

The endorsements are in tests/data/first_sight/, each with its source named, and their changes
listed by hand in expected.yaml before the reader was run on them. It prints, per endorsement,
the changes found (right kind and target) and invented, then the totals; it only prints, and
tests/test_endorsement_first_sight.py holds the figures. Run it from the project root:

    uv run python bench/endorsement_first_sight.py
"""

from __future__ import annotations

from tests.support.first_sight import FIRST_SET, LATER_SET, report, scores

if __name__ == "__main__":
    for title, listing in (("first seven", FIRST_SET), ("five gathered later", LATER_SET)):
        print(f"== {title} ({listing})")
        print(report(scores(listing)))

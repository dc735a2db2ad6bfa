"""The reader's figures on real endorsements it had never seen (tests/data/first_sight/, each
with its source): the changes listed by hand are found at least this often, and nothing is
invented. docs/policy-library.md gives the figures; they can only rise."""

from __future__ import annotations

from types import ModuleType

from tests.support.paths import ROOT
from tests.support.scripts import load_script

BENCH: ModuleType = load_script(ROOT / "bench" / "endorsement_first_sight.py")
FIRST_SET, LATER_SET, TRAINING_SET = BENCH.FIRST_SET, BENCH.LATER_SET, BENCH.TRAINING_SET
HELD_OUT_SET, HELD_OUT_2_SET = BENCH.HELD_OUT_SET, BENCH.HELD_OUT_2_SET
HELD_OUT_3_SET = BENCH.HELD_OUT_3_SET
report, scores = BENCH.report, BENCH.scores

# (listing, found at least, listed): before the reader learnt their phrase families, the first
# seven gave 3 of 17 with 10 invented, the five gathered later 0 of 9 with 4 invented, the
# training set 5 of 14 with 4 invented. Every figure since is TUNED on these sets; reading version
# 5 (references read by how they are built) raised the five gathered later from 4 to 7.
FLOORS = [(FIRST_SET, 15, 17), (LATER_SET, 7, 9), (TRAINING_SET, 10, 14)]


def test_first_sight_figures_hold_and_nothing_is_invented() -> None:
    for listing, floor, listed in FLOORS:
        found = scores(listing)
        print(f"\n{listing}\n{report(found)}")
        assert sum(s.listed for s in found) == listed
        assert sum(s.found for s in found) >= floor, report(found)
        assert sum(s.invented for s in found) == 0, report(found)


def test_the_held_out_set_is_read_without_inventing() -> None:
    # Reading version 3 saw these thirteen once, at first sight: 7 of 23 found and 4 invented.
    # Reading version 4's safety rules and phrase families were then TUNED on what it got wrong
    # here, so its figures, 13 of 23 found and none invented, are no longer first sight; the
    # goal is 80% found with nothing invented, and it is not met.
    found = scores(HELD_OUT_SET)
    print(f"\n{HELD_OUT_SET}\n{report(found)}")
    assert sum(s.listed for s in found) == 23
    assert sum(s.found for s in found) >= 13, report(found)
    assert sum(s.invented for s in found) == 0, report(found)


def test_the_second_held_out_set_is_read_no_worse_than_at_first_sight() -> None:
    # Reading version 4 saw these five once, at first sight: 1 of 15 found and 2 invented.
    # Reading version 5 was then TUNED on them (caption paths, definitions by term, "amended to
    # add" in the sentence): 12 of 15 found and none invented, no longer a first-sight figure.
    found = scores(HELD_OUT_2_SET)
    print(f"\n{HELD_OUT_2_SET}\n{report(found)}")
    assert sum(s.listed for s in found) == 15
    assert sum(s.found for s in found) >= 12, report(found)
    assert sum(s.invented for s in found) == 0, report(found)


def test_the_third_held_out_set_is_read_without_inventing() -> None:
    # Reading version 5 saw these thirteen once, at first sight: 7 of 22 found and 7 invented,
    # far from the goal (80% found, nothing invented). Reading version 6 was then TUNED on them
    # (a safety pass: "deleted … and the following is inserted" a replace, a part named before
    # its clause, a heading's part kept, two columns read across refused, "restated in its
    # entirety to read", "further amended by adding"): 13 of 22 found and
    # none invented, no longer a first-sight figure.
    found = scores(HELD_OUT_3_SET)
    print(f"\n{HELD_OUT_3_SET}\n{report(found)}")
    assert sum(s.listed for s in found) == 22
    assert sum(s.found for s in found) >= 13, report(found)
    assert sum(s.invented for s in found) == 0, report(found)

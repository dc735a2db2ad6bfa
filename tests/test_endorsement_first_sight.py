"""The reader's figures on real endorsements it had never seen (tests/data/first_sight/, each
with its source): the changes listed by hand are found at least this often, and no more are
invented than the figure allows (none, on every set the reader was tuned on). docs/policy-library.md
gives the figures; found can only rise and invented only fall."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.paths import ROOT
from tests.support.scripts import load_script

BENCH: ModuleType = load_script(ROOT / "bench" / "endorsement_first_sight.py")
report, scores = BENCH.report, BENCH.scores

# (listing, found at least, listed, invented at most). The first six sets' figures are TUNED on
# them and the last two's are first sight; the goal, 80% found with nothing invented at first
# sight, is not met. At first sight:
SETS = [
    # the first seven 3 of 17 with 10 invented, the five gathered later 0 of 9 with 4 invented,
    # the training set 5 of 14 with 4 invented, before the reader learnt their phrase families;
    # reading version 5 (references read by how they are built) raised the five from 4 to 7.
    (BENCH.FIRST_SET, 15, 17, 0),
    (BENCH.LATER_SET, 8, 9, 0),
    (BENCH.TRAINING_SET, 12, 14, 0),
    # Reading version 3 saw these thirteen once: 7 of 23 found and 4 invented. Reading version
    # 4's safety rules and phrase families were then tuned on what it got wrong here.
    (BENCH.HELD_OUT_SET, 16, 23, 0),
    # Reading version 4 saw these five once: 1 of 15 found and 2 invented. Reading version 5 was
    # then tuned on them (caption paths, definitions by term, "amended to add" in the sentence).
    (BENCH.HELD_OUT_2_SET, 15, 15, 0),
    # Reading version 5 saw these thirteen once: 7 of 22 found and 7 invented. Reading version
    # 6 was then tuned on them (a safety pass: "deleted … and the following is inserted" a
    # replace, a part named before its clause, a heading's part kept, two columns read across
    # refused, "restated in its entirety to read", "further amended by adding").
    (BENCH.HELD_OUT_3_SET, 17, 22, 0),
    # The floors above are reading version 7's (tuned on every set, each rule a drafting family:
    # a policy's exclusion in its own words, definitions with no part, captions above a label,
    # pages that lost their spaces, OCR's "A.I."): 83 of 100, none invented.
    #
    # Not tuned on: gathered and listed blind while version 7 was written, and read once by
    # versions 6 and 7. Both found 2 of 16 here; version 6 invented 4, version 7 five (its
    # exclusion in the policy's own words read one in a workers' compensation form's provisions).
    (BENCH.HELD_OUT_4_SET, 2, 16, 5),
    # Both found 7 of 26 here and invented 5: version 7's rules, drawn from the sets above, found
    # nothing more on the two sets it had not seen.
    (BENCH.HELD_OUT_5_SET, 7, 26, 5),
]


@pytest.mark.parametrize(
    ("listing", "floor", "listed", "invented_at_most"), SETS, ids=[s[0] for s in SETS]
)
def test_each_set_is_read_at_least_as_well_and_invents_no_more(
    listing: str, floor: int, listed: int, invented_at_most: int
) -> None:
    found = scores(listing)
    print(f"\n{listing}\n{report(found)}")
    assert sum(s.listed for s in found) == listed
    assert sum(s.found for s in found) >= floor, report(found)
    assert sum(s.invented for s in found) <= invented_at_most, report(found)

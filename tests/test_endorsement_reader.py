"""The endorsement reader (policy/changes.py) on page texts: the sample endorsements' plain
phrases, the standard amendatory phrases' variants, and the edge cases of real layouts."""

from __future__ import annotations

import pytest

from claims_crew.policy.change_targets import reduce_reference
from claims_crew.policy.changes import Change, read_changes
from claims_crew.policy.document import LookupMiss
from claims_crew.policy.library import PolicyLibrary

OPENING = (
    "HARBOUR MUTUAL INSURANCE SOCIETY\n"
    "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.\n"
    "This endorsement modifies insurance provided under the following:\n"
    "HARBOUR MUTUAL HOMEOWNERS POLICY (FORM HM-HO-2025)\n"
)
HM_E_07 = (
    OPENING + "ESCAPE OF WATER – APPLIANCES\n"
    "Clause 4.2(b) is replaced by the following:\n"
    "(b) sudden and accidental discharge of water or steam from within a plumbing, heating or\n"
    "air conditioning system, or from a household appliance that was less than 10 years old at\n"
    "the time of the loss;\n"
)
HM_E_09 = (
    OPENING + "HOT TUBS AND SPA POOLS\n"
    "1. The following exclusion is added to section 7:\n"
    "7.12 Hot tubs and spa pools — Loss or damage to a hot tub or spa pool, or caused by water\n"
    "escaping from one, however caused.\n"
    "2. Clause 8.3 is replaced by the following:\n"
    "8.3 Emergency repairs — You may arrange emergency repairs up to £750.\n"
)
MA_E_12 = (
    "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.\n"
    "RIDE-SHARING EXCLUSION\n"
    "The following exclusion is added to Section II – Physical Damage Coverage, B. Exclusions:\n"
    "8. Ride-Sharing — “Loss” to “your covered auto” while it is logged on to a transportation\n"
    "network platform as a driver, or carrying a passenger for hire.\n"
)


def _pairs(changes: list[Change]) -> list[tuple[str, str]]:
    return [(c.kind, c.target) for c in changes]


def test_sample_water_endorsement_replaces_4_2_b() -> None:
    [change] = read_changes([HM_E_07])
    assert (change.kind, change.target, change.page) == ("replace", "4.2(b)", 1)
    assert change.text.startswith("(b) sudden and accidental discharge")
    assert change.text.endswith("at\nthe time of the loss;")
    assert "ENDORSEMENT" not in change.text


def test_sample_hot_tub_endorsement_adds_to_7_and_replaces_8_3() -> None:
    changes = read_changes([HM_E_09])
    assert _pairs(changes) == [("add", "7"), ("replace", "8.3")]
    assert changes[0].text.startswith("7.12 Hot tubs and spa pools")
    assert changes[0].text.endswith("however caused.")  # the next change's label "2." is not in it
    assert (
        changes[1].text == "8.3 Emergency repairs — You may arrange emergency repairs up to £750."
    )


def test_sample_ride_sharing_endorsement_adds_to_section_ii_b() -> None:
    [change] = read_changes([MA_E_12])
    assert (change.kind, change.target) == ("add", "Section II.B")
    assert change.text.startswith("8. Ride-Sharing")


@pytest.mark.parametrize(
    ("policy_id", "pages", "targets"),
    [
        ("HM-HOME-001", [HM_E_07], {"4.2(b)": "4.2(b)"}),
        ("HM-HOME-001", [HM_E_09], {"7": "7", "8.3": "8.3"}),
        ("MR-AUTO-001", [MA_E_12], {"Section II.B": "Section II.B"}),
    ],
)
def test_sample_targets_resolve_on_the_sample_forms(
    sample_library: PolicyLibrary, policy_id: str, pages: list[str], targets: dict[str, str]
) -> None:
    form = sample_library.open(policy_id)
    for change in read_changes(pages):
        clause = form.lookup(change.target)
        assert not isinstance(clause, LookupMiss), change
        assert clause.id == targets[change.target]


@pytest.mark.parametrize(
    ("printed", "targets", "within"),
    [
        ("Coverage A.2.a.(4), Coverage Extensions, Supplementary Payments", ("A.2.a.(4)",), ""),
        ("Exclusion B.5., Fellow Employee", ("B.5",), ""),
        (
            "Paragraph A.2.b. of the Common Policy Conditions, Cancellation",
            ("A.2.b",),
            "Common Policy Conditions, Cancellation",
        ),
        ("Clause 4.2(b)", ("4.2(b)",), ""),
        ("section 7", ("7",), ""),
        ("Section II – Physical Damage Coverage, B. Exclusions", ("Section II.B",), ""),
        ("c. Paragraph (5) of a. Supplementary Payments", ("a.(5)",), ""),
        (
            "Paragraphs A.4. and A.5. of the Common Policy Conditions",
            ("A.4", "A.5"),
            "Common Policy Conditions",
        ),
        (
            "B.5., Other Insurance of Section IV - Business Auto Conditions",
            ("B.5",),
            "Section IV - Business Auto Conditions",
        ),
        ("Part B", ("Part B",), ""),
        ("the General Conditions", ("General Conditions",), ""),
        ("the Business Auto Coverage Form", ("",), "Business Auto Coverage Form"),
    ],
)
def test_printed_references_reduce_to_what_names_the_clause(
    printed: str, targets: tuple[str, ...], within: str
) -> None:
    reference = reduce_reference(printed)
    assert (reference.targets, reference.within) == (targets, within)

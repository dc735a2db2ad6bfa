"""The resolver reads the wording in force: a claim naming its issued policy is re-read on the
form as its endorsements amend it, within the policy's own period, paid under its declarations,
and a quote of the form's words an endorsement replaced or deleted is not verified.

The wording in force is made by hand here (tests/support/in_force.py): these tests are about
what the resolver does with it, not how the endorsements are read.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from claims_crew.errors import PolicyError
from claims_crew.models import Claim, ClaimFile, Evidence, ParseFailure
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import SideReview
from claims_crew.resolver import resolve
from claims_crew.resolver.case import Case
from claims_crew.resolver.case_files import load_case
from claims_crew.resolver.config import load_config
from claims_crew.resolver.evidence import review_side
from claims_crew.resolver.reread import fitting_exclusions, policy_view, schedule_for
from claims_crew.resolver.rules.checks import policy_checks
from claims_crew.resolver.rules.reread import superseded
from claims_crew.run.levels.adjudicator import dispute_text
from tests.support.in_force import AMENDED_4_2_B, issued_by_hand
from tests.support.paths import ROOT, SAMPLE_POLICIES

RULES = load_config(ROOT / "config")
FORM_QUOTE = "from within a plumbing, heating or air conditioning system or a household appliance"
AMENDED_QUOTE = "from a household appliance that was less than 10 years old at the time of the loss"


@pytest.fixture
def library(session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> PolicyLibrary:
    return issued_by_hand(PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=session_cache), monkeypatch)


def claim(number: str | None = "HM-25-00417", **changes: object) -> ClaimFile:
    fields: dict[str, object] = {
        "claim_id": "C-9001",
        "policy_id": "HM-HOME-001",
        "policy_number": number,
        "claimant": "Priya Raman",
        "date_reported": "2025-03-12",
        "date_of_loss": "2025-03-10",
        "description": "Our 14-year-old washing machine's hose split and flooded the kitchen.",
        "amount": 3100,
        "currency": "GBP",
    }
    return ClaimFile.model_validate({**fields, **changes})


def answer(clause_id: str, quote: str, answer: str = "covered") -> Claim:
    return Claim(
        answer=answer,
        confidence=0.9,
        evidence=[Evidence(clause_id=clause_id, quote=quote)],
        rationale="as the clause says",
    )


# ---- the re-read --------------------------------------------------------------------------


def test_a_claim_naming_its_policy_reads_the_clause_in_force(library: PolicyLibrary) -> None:
    view = policy_view(library, "HM-HOME-001", ["clause 4.2b", "4.2(a)"], claim())
    changed, kept = view.clauses["clause 4.2b"], view.clauses["4.2(a)"]
    assert changed is not None and kept is not None
    assert changed.text == AMENDED_4_2_B
    assert changed.amended is not None and changed.amended.endorsement == "HM-E-07"
    assert changed.original is not None and changed.amended.original is not None
    assert "or a household appliance;" in changed.amended.original
    assert kept.amended is None and kept.original is None


def test_the_form_alone_without_a_policy_number(library: PolicyLibrary) -> None:
    view = policy_view(library, "HM-HOME-001", ["4.2(b)"], claim(None))
    read = view.clauses["4.2(b)"]
    assert read is not None and read.amended is None and "10 years" not in read.text
    # The form's own dates: on sale 2025-01-01..2026-12-31.
    assert (view.in_force_from, view.in_force_to) == (date(2025, 1, 1), date(2026, 12, 31))


def test_a_case_naming_another_policy_reads_that_wording_alone(library: PolicyLibrary) -> None:
    """A case file's `policy` other than the claim's: the claim's endorsements amend its own
    form, so the other is read as it is."""
    other = claim(policy_id="MR-AUTO-001")
    view = policy_view(library, "HM-HOME-001", ["4.2(b)"], other)
    read = view.clauses["4.2(b)"]
    assert read is not None and read.amended is None and view.in_force_to == date(2026, 12, 31)


def test_the_issued_policy_period_decides_in_force(library: PolicyLibrary) -> None:
    """The form is on sale to 2026-12-31, but this policy's period ends 2025-12-31."""
    late = claim(date_of_loss="2026-02-01", date_reported="2026-02-02")
    view = policy_view(library, "HM-HOME-001", [], late)
    assert (view.in_force_from, view.in_force_to) == (date(2025, 1, 1), date(2025, 12, 31))
    early = policy_checks(late, view, RULES)
    assert early is not None and early.reason_codes == ["policy_not_in_force"]
    assert policy_checks(claim(), policy_view(library, "HM-HOME-001", [], claim()), RULES) is None


@pytest.mark.parametrize(
    ("number", "code", "unreadable"),
    [
        ("HM-25-99999", "policy_not_found", None),  # no such issued policy
        ("MA-25-0193", "policy_unreadable", "wrong_form"),  # issued on the auto form
    ],
)
def test_an_unknown_or_mismatched_policy_number_escalates(
    sample_library: PolicyLibrary, number: str, code: str, unreadable: str | None
) -> None:
    """On the sample policies as issued, read by the library itself."""
    bad = claim(number)
    view = policy_view(sample_library, "HM-HOME-001", ["4.2(b)"], bad)
    assert view.found is (unreadable is not None) and view.unreadable == unreadable
    early = policy_checks(bad, view, RULES)
    assert early is not None and early.outcome == "ESCALATED" and early.reason_codes == [code]
    assert f"(policy number {number})" in early.trail[0].detail
    assert fitting_exclusions(sample_library, "HM-HOME-001", bad, _facts(), RULES) == ()


def test_an_unreadable_wording_in_force_is_policy_unreadable(
    library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> PolicyDocument:
        raise PolicyError("malformed", "HM-E-07's PDF cannot be read")

    monkeypatch.setattr(PolicyLibrary, "in_force", broken)
    view = policy_view(library, "HM-HOME-001", [], claim())
    early = policy_checks(claim(), view, RULES)
    assert view.unreadable == "malformed"
    assert early is not None and early.reason_codes == ["policy_unreadable"]


def _facts() -> ParseFailure:
    return ParseFailure(raw="", reason="not asked")


# ---- the schedule -------------------------------------------------------------------------


def test_the_schedule_is_the_claims_file_then_the_declarations_then_the_forms(
    library: PolicyLibrary,
) -> None:
    auto = claim("MA-25-0193", policy_id="MR-AUTO-001", currency="USD")
    assert schedule_for(library, "MR-AUTO-001", auto).name == "lindqvist-declarations.yaml"
    form_only = claim(None, policy_id="MR-AUTO-001", currency="USD")
    assert schedule_for(library, "MR-AUTO-001", form_only).schedule is None
    home = schedule_for(library, "HM-HOME-001", claim())
    assert home.name == "HM-HOME-001 in policies/index.yaml" and home.schedule is not None
    named = claim(schedule="lindqvist-declarations.yaml")
    assert "is for policy MR-AUTO-001" in (
        schedule_for(library, "HM-HOME-001", named).problem or ""
    )


# ---- the quote check ----------------------------------------------------------------------


def _review(
    library: PolicyLibrary, clause_id: str, quote: str, kind: str = "covered"
) -> SideReview:
    view = policy_view(library, "HM-HOME-001", [clause_id], claim())
    return review_side("policy", answer(clause_id, quote, kind), view, frozenset(), RULES)


def test_a_quote_of_the_replaced_wording_is_superseded(library: PolicyLibrary) -> None:
    review = _review(library, "4.2(b)", FORM_QUOTE)
    (check,) = review.clauses
    assert check.status == "superseded"
    assert review.reason_codes == ["superseded_wording"]
    assert not review.holds
    assert check.amended_by == "as amended by endorsement HM-E-07 (page 1)"
    assert check.original is not None and "or a household appliance;" in check.original
    assert check.text == AMENDED_4_2_B
    assert superseded(check) == (
        "4.2(b) (the quote is the form's wording before it was amended by endorsement "
        "HM-E-07 (page 1))"
    )


def test_a_quote_of_the_amended_wording_is_verified_and_says_so(library: PolicyLibrary) -> None:
    review = _review(library, "4.2(b)", AMENDED_QUOTE)
    (check,) = review.clauses
    assert check.status == "verified" and review.holds
    assert check.amended_by == "as amended by endorsement HM-E-07 (page 1)"
    assert check.original is not None


def test_words_in_neither_wording_are_still_a_misquote(library: PolicyLibrary) -> None:
    review = _review(library, "4.2(b)", "any leak from any appliance of any age")
    assert review.clauses[0].status == "quote_mismatch"
    assert review.reason_codes == ["quote_mismatch"]


def test_a_quote_of_a_deleted_exclusion_is_superseded(library: PolicyLibrary) -> None:
    review = _review(library, "7.11", "Any reduction in market value", "not_covered")
    (check,) = review.clauses
    assert check.status == "superseded" and check.text == ""
    assert check.amended_by == "as deleted by endorsement HM-E-99 (page 2)"
    assert "superseded_wording" in review.reason_codes


def _agreed_case(
    library: PolicyLibrary, tmp_path: Path, quote: str | None, example: str = "agree"
) -> Case:
    """The example case water-damage-start-known-EXAMPLE, its claim naming HM-25-00417, and
    with `quote`, both agents citing 4.2(b) in those words."""
    name = f"water-damage-start-known-{example}.json"
    data = json.loads((ROOT / "examples/cases" / name).read_text(encoding="utf-8"))
    data["claim_file"]["policy_number"] = "HM-25-00417"
    for side in ("policy", "fraud") if quote else ():
        data["claims"][side]["evidence"] = [{"clause_id": "4.2(b)", "quote": quote}]
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_case(path, library, RULES)


def test_a_case_is_not_decided_on_the_replaced_wording(
    library: PolicyLibrary, tmp_path: Path
) -> None:
    """Both agents quote the form's 4.2(b) for covered: neither side holds, so the claim is not
    decided automatically on words the policyholder's contract no longer has."""
    resolution = resolve(_agreed_case(library, tmp_path, FORM_QUOTE), RULES)
    assert resolution.outcome == "ESCALATED" and not resolution.decided
    assert "superseded_wording" in resolution.reason_codes
    steps = [s.detail for s in resolution.trail if s.rule == "reread"]
    assert any("before it was amended by endorsement HM-E-07" in d for d in steps)
    # The same agreement on words the amended clause keeps is decided as before.
    kept = resolve(_agreed_case(library, tmp_path, "sudden and accidental discharge"), RULES)
    assert kept.outcome == "ACCEPTED"
    (check,) = kept.sides["policy"].clauses
    assert check.amended_by == "as amended by endorsement HM-E-07 (page 1)"


# ---- on the sample policies as issued ----------------------------------------------------------


def test_the_sample_home_policy_in_force_on_each_side_of_its_mid_term_endorsement(
    sample_library: PolicyLibrary,
) -> None:
    """HM-25-00417: HM-E-07 from the start, HM-E-09 (7.12 added) from 2025-07-01."""
    march = policy_view(sample_library, "HM-HOME-001", ["4.2(b)", "7.12"], claim())
    water = march.clauses["4.2(b)"]
    assert water is not None and water.amended is not None
    assert water.amended.cited() == "as amended by endorsement HM-E-07 (page 1)"
    assert "less than 10 years old" in water.text
    assert march.clauses["7.12"] is None  # not yet added
    august = claim(date_of_loss="2025-08-10", date_reported="2025-08-11")
    view = policy_view(sample_library, "HM-HOME-001", ["7.12"], august)
    hot_tub = view.clauses["7.12"]
    assert hot_tub is not None and hot_tub.kind == "exclusion"
    assert hot_tub.amended is not None and hot_tub.amended.kind == "add"


def test_the_sample_auto_policy_is_paid_under_its_declarations(
    sample_library: PolicyLibrary,
) -> None:
    auto = claim("MA-25-0193", policy_id="MR-AUTO-001", currency="USD", date_of_loss="2025-10-02")
    source = schedule_for(sample_library, "MR-AUTO-001", auto)
    assert source.name == "lindqvist-declarations.yaml" and source.schedule is not None


def test_the_adjudicator_is_told_which_endorsement_changed_a_clause(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    case = _agreed_case(sample_library, tmp_path, None, example="dispute")
    resolution = resolve(case, RULES)
    assert resolution.outcome == "ADJUDICATION_REQUIRED"
    shown = dispute_text(case, resolution)
    assert "[grant] as amended by endorsement HM-E-07 (page 1):" in shown
    assert "less than 10 years old" in shown  # the words in force

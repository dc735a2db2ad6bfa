"""The amount payable: the sample claims against their schedules, and the authority limit."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from claims_crew.claim_files import inbox_files, load_claim
from claims_crew.models import ClaimFile, Payable
from claims_crew.policy.library import PolicyLibrary
from claims_crew.policy.schedule import Schedule, ScheduleKind, ScheduleSource, find_schedule
from claims_crew.resolver.payable import compute_payable
from claims_crew.resolver.reread import schedule_for
from claims_crew.run.crew_review import review_claim
from tests.support.amounts import config_with_limit, theft_script
from tests.support.crew import settings
from tests.support.paths import ROOT, SAMPLE_POLICIES

INBOX = ROOT / "claims" / "inbox"

# Each sample claim decided covered on the clause a person would name, and the sum worked by
# hand from its schedule: (kind, clause, running amount after the step), then the amount.
BY_HAND: list[tuple[str, str, list[tuple[str, str | None, str]], str]] = [
    # Escape of water: within 9.1's £50,000 and 9.2's £5,000 for 4.2, less 5.4's £500 for 4.2.
    ("C-1042.json", "4.2(b)",
     [("claimed", None, "4200"), ("limit", "9.1", "4200"), ("sub_limit", "9.2", "4200"),
      ("deductible", "5.4", "3700")], "3700"),
    ("C-1043.json", "4.2(b)",
     [("claimed", None, "3850"), ("limit", "9.1", "3850"), ("sub_limit", "9.2", "3850"),
      ("deductible", "5.4", "3350")], "3350"),
    # £5,600 of water damage: capped at the £5,000 sub-limit for 4.2 first.
    ("C-1048.json", "4.2(b)",
     [("claimed", None, "5600"), ("limit", "9.1", "5600"), ("sub_limit", "9.2", "5000"),
      ("deductible", "5.4", "4500")], "4500"),
    # Theft and hail: the standard excess of £250.
    ("C-1044.yaml", "4.4(a)",
     [("claimed", None, "2600"), ("limit", "9.1", "2600"), ("deductible", "5.4", "2350")],
     "2350"),
    ("C-1046.json", "4.3(a)",
     [("claimed", None, "1450"), ("limit", "9.1", "1450"), ("deductible", "5.4", "1200")],
     "1200"),
    # The auto claim names its Declarations: the car's actual cash value caps the repair.
    ("C-2001.json", "Section II.A.2",
     [("claimed", None, "2300"), ("limit", "Section II.C.1", "2100"),
      ("deductible", "Section II.D.2", "1600")], "1600"),
    # Delayed baggage: £300 for Section 4, and no excess in Section 4.
    ("C-3001.json", "Section 4/what-is-covered/•1",
     [("claimed", None, "240"), ("limit", "Section 4", "240")], "240"),
]  # fmt: skip


def payable_of(
    library: PolicyLibrary, claim: ClaimFile, clause_id: str, drop: ScheduleKind | None = None
) -> Payable:
    """The claim's payable amount decided on `clause_id`, its schedule found as a run finds it;
    `drop` leaves the schedule's items of one kind out."""
    doc = library.open(claim.policy_id)
    entry = library.entries[claim.policy_id]
    source = find_schedule(library.root, claim.policy_id, entry.schedule, claim.schedule)
    if drop is not None and source.schedule is not None:
        kept = tuple(i for i in source.schedule.items if i.kind != drop)
        source = ScheduleSource(source.name, source.schedule.model_copy(update={"items": kept}))
    clause = doc.get(clause_id)
    assert clause is not None, clause_id
    within = [clause.id, *doc.ancestors(clause.id)]
    return compute_payable(claim.amount, claim.currency, source, within)


@pytest.mark.parametrize(("claim_file", "clause_id", "steps", "amount"), BY_HAND)
def test_sample_claims_pay_what_a_person_works_out(
    sample_library: PolicyLibrary,
    claim_file: str,
    clause_id: str,
    steps: list[tuple[str, str | None, str]],
    amount: str,
) -> None:
    claim = load_claim(INBOX / claim_file).claim
    payable = payable_of(sample_library, claim, clause_id)
    assert payable.reason is None
    assert payable.amount == Decimal(amount) and isinstance(payable.amount, Decimal)
    assert payable.currency == claim.currency
    assert [(s.kind, s.clause_id, s.after) for s in payable.steps] == [
        (kind, clause, Decimal(after)) for kind, clause, after in steps
    ]
    # Each step starts where the one before ended.
    assert all(a.after == b.before for a, b in zip(payable.steps, payable.steps[1:], strict=False))


@pytest.mark.parametrize("kind", ["limit", "sub_limit", "deductible"])
def test_each_kind_of_schedule_item_changes_a_result(
    sample_library: PolicyLibrary, kind: ScheduleKind
) -> None:
    changed = [
        claim_file
        for claim_file, clause_id, _, amount in BY_HAND
        if payable_of(sample_library, load_claim(INBOX / claim_file).claim, clause_id, kind).amount
        != Decimal(amount)
    ]
    assert changed, f"no sample claim's amount depends on a {kind}"


def test_a_claim_without_a_schedule_gets_no_amount_and_says_why(
    sample_library: PolicyLibrary,
) -> None:
    claim = load_claim(INBOX / "C-2001.json").claim.model_copy(update={"schedule": None})
    payable = payable_of(sample_library, claim, "Section II.A.2")
    assert payable.amount is None and payable.steps == []
    assert payable.reason == (
        "policy MR-AUTO-001 has no schedule and the claim names no schedule file"
    )


def test_a_schedule_file_that_is_missing_is_named_in_the_reason(
    sample_library: PolicyLibrary,
) -> None:
    claim = load_claim(INBOX / "C-2001.json").claim.model_copy(update={"schedule": "gone.yaml"})
    payable = payable_of(sample_library, claim, "Section II.A.2")
    assert payable.amount is None
    assert payable.reason is not None and "gone.yaml: schedule file not found" in payable.reason


def test_another_currency_gets_no_amount() -> None:
    source = ScheduleSource("HM-HOME-001 in policies/index.yaml", Schedule(currency="GBP"))
    payable = compute_payable(Decimal("100"), "EUR", source, ["4.2(b)", "4.2", "4"])
    assert payable.amount is None
    assert payable.reason is not None and "EUR" in payable.reason and "GBP" in payable.reason


def test_the_deductible_never_makes_an_amount_negative(sample_library: PolicyLibrary) -> None:
    claim = load_claim(INBOX / "C-1046.json").claim.model_copy(update={"amount": Decimal("99.5")})
    assert payable_of(sample_library, claim, "4.3(a)").amount == Decimal(0)


def test_a_fractional_amount_in_yaml_must_be_text() -> None:
    with pytest.raises(ValueError, match="as text"):
        Schedule.model_validate(
            {"currency": "GBP", "items": [{"kind": "deductible", "amount": 0.1, "clause": "5.4"}]}
        )
    item = {"kind": "deductible", "amount": "99.50", "clause": "5.4"}
    assert Schedule.model_validate({"currency": "GBP", "items": [item]}).items[0].amount == (
        Decimal("99.50")
    )


# ---- the amount on a decision, and the authority limit, through the real crew ---------------


def test_an_automatic_decision_keeps_its_amount(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    claim = load_claim(INBOX / "C-1044.yaml")
    record = review_claim(claim, settings(sample_library, theft_script(), tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered")
    assert resolution.payable is not None and resolution.payable.amount == Decimal("2350")
    assert resolution.payable.deciding_clause == "4.4(a)"
    # It is kept with the decision: the record the store keeps reads it back whole.
    again = type(record).model_validate_json(record.model_dump_json())
    assert again.resolution is not None and again.resolution.payable == resolution.payable


def test_an_amount_over_the_authority_limit_goes_to_a_person(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    claim = load_claim(INBOX / "C-1044.yaml")
    config = config_with_limit(tmp_path, "2000")
    record = review_claim(claim, settings(sample_library, theft_script(), tmp_path, config))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert resolution.outcome == "ESCALATED"
    assert resolution.reason_codes == ["over_authority"]
    assert (resolution.would_have_been, resolution.answer) == ("ACCEPTED", None)
    assert resolution.payable is not None and resolution.payable.amount == Decimal("2350")
    assert "2350 GBP" in (resolution.question or "") and "2000 GBP" in (resolution.question or "")
    assert [s.reason_code for s in resolution.trail if s.fired][-1] == "over_authority"


def test_an_amount_at_the_limit_stands(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    claim = load_claim(INBOX / "C-1044.yaml")
    config = config_with_limit(tmp_path, "2350")
    record = review_claim(claim, settings(sample_library, theft_script(), tmp_path, config))
    assert record.resolution is not None and record.resolution.outcome == "ACCEPTED"


def test_samples_schedule_files_live_beside_the_index() -> None:
    named = {load_claim(p).claim.schedule for p in inbox_files(INBOX)}
    for name in named - {None}:
        assert name is not None and (SAMPLE_POLICIES / "schedules" / name).is_file()


def test_a_schedule_naming_a_clause_the_policy_lacks_gives_no_amount(
    tmp_path: Path, session_cache: Path
) -> None:
    """The run does not stop on it (`config check` reports it); the claim gets no amount."""
    policies = tmp_path / "policies"
    shutil.copytree(SAMPLE_POLICIES, policies, ignore=shutil.ignore_patterns("src"))
    declarations = policies / "schedules" / "lindqvist-declarations.yaml"
    text = declarations.read_text(encoding="utf-8")
    declarations.write_text(text.replace('"Section II.D.2"', '"Section II.D.9"'), "utf-8")
    library = PolicyLibrary(root=policies, cache_dir=session_cache)
    claim = load_claim(INBOX / "C-2001.json").claim
    source = schedule_for(library, "MR-AUTO-001", claim)
    assert source.schedule is None
    assert source.problem == (
        "lindqvist-declarations.yaml names clause(s) MR-AUTO-001 lacks: Section II.D.9"
    )
    payable = compute_payable(claim.amount, claim.currency, source, ["Section II.A.2"])
    assert payable.amount is None and payable.reason == source.problem

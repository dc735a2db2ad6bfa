"""A person's decision rests on the clause(s) they name: offered verified first, re-read in the
wording in force, kept with the review, the proposal and the audit entry, and the amount
payable computed from the clause named; the desk refuses a decision that names none."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import text

from claims_crew.deciding import actions
from claims_crew.deciding.clauses import decision_clauses, offered_clauses
from claims_crew.deciding.payable import payable_on_confirming, payable_on_decision
from claims_crew.desk import DeskRules
from claims_crew.desk.rules import FourEyes
from claims_crew.errors import ClauseRefused, UnknownClause
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Proposal, Review, Store
from tests.support.chain import rewrite_unsigned
from tests.support.store import back_to, record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

DENIALS_TWICE = DeskRules(four_eyes=FourEyes(always=["not_covered"]))


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """The water claim escalated (policy cites 4.2(b), fraud 7.1), and reviewers ana and bo."""
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    store.add_reviewer("ana")
    store.add_reviewer("bo")
    return store


def test_the_verified_clauses_are_offered_first_then_the_whole_wording(
    store: Store, sample_library: PolicyLibrary
) -> None:
    offered = offered_clauses(store, "C-1042", sample_library)
    assert [(c.clause_id, c.verified) for c in offered[:2]] == [("4.2(b)", True), ("7.1", True)]
    rest = offered[2:]
    assert rest and not any(c.verified for c in rest)
    assert "4.4" in {c.clause_id for c in rest}  # any clause of the wording may be named
    assert len({c.clause_id for c in offered}) == len(offered)


def test_a_covered_decision_without_a_clause_is_refused_naming_the_verified_ones(
    store: Store, sample_library: PolicyLibrary
) -> None:
    with pytest.raises(ClauseRefused) as refused:
        decision_clauses(store, "C-1042", "covered", [], DeskRules(), sample_library)
    message = str(refused.value)
    assert "must name the clause(s) it rests on" in message
    assert "The re-read verified: 4.2(b)" in message and "7.1" in message
    assert decision_clauses(store, "C-1042", "needs_more_evidence", [], DeskRules()) == ()
    anything = DeskRules(decide_without_clause=["covered", "not_covered"])
    assert decision_clauses(store, "C-1042", "covered", [], anything, sample_library) == ()


def test_an_unknown_clause_is_refused_by_its_id(
    store: Store, sample_library: PolicyLibrary
) -> None:
    with pytest.raises(UnknownClause) as unknown:
        decision_clauses(
            store, "C-1042", "covered", ["4.2(b)", "99.9"], DeskRules(), sample_library
        )
    assert unknown.value.clause_id == "99.9"
    assert "'99.9' is not in the wording in force of policy HM-HOME-001" in str(unknown.value)


def test_the_decision_keeps_the_clause_its_words_and_the_amount_from_it(
    store: Store, sample_library: PolicyLibrary
) -> None:
    clauses = decision_clauses(store, "C-1042", "covered", ["4.2(b)"], DeskRules(), sample_library)
    [clause] = clauses
    assert clause.clause_id == "4.2(b)" and "sudden and accidental" in clause.text
    payable = payable_on_decision(store, "C-1042", "covered", sample_library, clauses)
    assert payable is not None and payable.amount is not None
    assert payable.deciding_clause == "4.2(b)"
    done = store.decide(
        "C-1042", "covered", "The leak was sudden.", "ana", payable=payable,
        rules=DeskRules(), clauses=clauses,
    )  # fmt: skip
    assert isinstance(done, Review) and done.clauses == clauses
    [review] = store.reviews("C-1042")
    assert review.clauses == clauses and review.payable == payable
    entry = store.audit_entries("C-1042")[-1]
    assert entry.kind == "human" and entry.evidence == ["4.2(b)"]
    assert entry.clauses == [clause] and entry.payable == payable
    assert store.verify_audit().ok


def test_a_proposal_carries_its_clause_to_the_confirmation(
    store: Store, sample_library: PolicyLibrary
) -> None:
    clauses = decision_clauses(store, "C-1042", "not_covered", ["7.1"], DeskRules(), sample_library)
    proposed = store.decide(
        "C-1042", "not_covered", "Seepage over weeks.", "ana", rules=DENIALS_TWICE,
        clauses=clauses,
    )  # fmt: skip
    assert isinstance(proposed, Proposal) and proposed.clauses == clauses
    waiting = store.proposal("C-1042")
    assert waiting is not None and waiting.clauses == clauses
    assert store.audit_entries("C-1042")[-1].clauses == list(clauses)
    assert payable_on_confirming(store, "C-1042", sample_library) is None  # a refusal pays none
    confirmed = store.confirm("C-1042", "bo", rules=DENIALS_TWICE)
    assert confirmed.clauses == clauses and confirmed.decision == "not_covered"
    entry = store.audit_entries("C-1042")[-1]
    assert entry.kind == "human" and entry.evidence == ["7.1"] and entry.confirms is not None
    assert entry.clauses is not None and entry.clauses[0].text == clauses[0].text
    assert store.verify_audit().ok


def test_what_is_chosen_is_what_is_recorded(store: Store, sample_library: PolicyLibrary) -> None:
    """The terminal and the page show a choice, then record it: the same clauses and amount."""
    choice = actions.choose(store, "C-1042", "covered", ["4.2(b)"], DeskRules(), sample_library)
    assert [c.clause_id for c in choice.clauses] == ["4.2(b)"]
    assert choice.payable is not None and choice.payable.deciding_clause == "4.2(b)"
    done = actions.decide(store, "C-1042", choice, "The leak was sudden.", "ana")
    assert isinstance(done, Review) and done.decision == "covered"
    assert done.clauses == choice.clauses and done.payable == choice.payable
    with pytest.raises(ClauseRefused):
        actions.choose(store, "C-1042", "not_covered", [], DeskRules(), sample_library)


def test_the_amount_follows_the_clause_named(store: Store, sample_library: PolicyLibrary) -> None:
    named = decision_clauses(store, "C-1042", "covered", ["4.2(b)"], DeskRules(), sample_library)
    on_clause = payable_on_decision(store, "C-1042", "covered", sample_library, named)
    assert on_clause is not None and on_clause.amount is not None
    assert on_clause.amount <= Decimal("4200")


def test_a_reviews_clause_changed_after_the_decision_fails_the_audit(
    store: Store, sample_library: PolicyLibrary
) -> None:
    clauses = decision_clauses(store, "C-1042", "covered", ["4.2(b)"], DeskRules(), sample_library)
    store.decide("C-1042", "covered", "Sudden.", "ana", rules=DeskRules(), clauses=clauses)
    assert store.verify_audit().ok
    with store.write() as conn:
        conn.execute(text("UPDATE reviews SET clauses = REPLACE(clauses, 'sudden', 'slow')"))
    verdict = store.verify_audit()
    assert not verdict.ok and verdict.problem is not None
    assert "the review of claim C-1042 says clauses" in verdict.problem


def test_a_store_from_before_clauses_upgrades_and_its_entries_still_verify(
    store: Store, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """A person's decision recorded before decisions named clauses: its entry has neither key,
    its review row no column; after the upgrade it verifies, and new decisions name clauses."""
    store.decide("C-1042", "covered", "Sudden.", "ana", rules=DeskRules())
    with store.write() as conn:
        rewrite_unsigned(conn, lambda body: [body.pop(k, None) for k in ("clauses", "payable")])
    back_to(store, "0018_service_api")
    store.close()
    upgraded = Store()
    [old] = upgraded.reviews("C-1042")
    assert old.clauses == () and old.decision == "covered"
    water = water_loaded(tmp_path / "later", "C-1043")
    upgraded.record(record_for(water, sample_library), None, water)
    clauses = decision_clauses(upgraded, "C-1043", "covered", ["4.2(b)"], DeskRules())
    upgraded.decide("C-1043", "covered", "Sudden.", "ana", rules=DeskRules(), clauses=clauses)
    verdict = upgraded.verify_audit()
    assert verdict.ok, verdict.problem
    assert verdict.unsigned == 2  # the escalated and human entries, as they were written
    assert upgraded.audit_entries("C-1043")[-1].clauses == list(clauses)


def test_the_amount_comes_from_the_clause_that_pays_whatever_the_order_named(
    store: Store, sample_library: PolicyLibrary
) -> None:
    """On the £4,200 water claim, 4.2(b) pays £3,700 (the 4.2 sub-limit, less that section's
    £500 deductible) and 4.4(c) £1,750; the exclusion 7.1 named first beside 4.2(b) pays
    nothing of its own."""

    def paid(*ids: str) -> Decimal | None:
        named = decision_clauses(store, "C-1042", "covered", list(ids), DeskRules(), sample_library)
        payable = payable_on_decision(store, "C-1042", "covered", sample_library, named)
        return None if payable is None else payable.amount

    assert paid("4.2(b)") == Decimal("3700")
    assert paid("4.4(c)") == Decimal("1750")
    assert paid("7.1", "4.2(b)") == Decimal("3700")

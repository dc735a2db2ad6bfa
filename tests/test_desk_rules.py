"""The desk's rules as the store is handed them: pure functions of a reviewer's settings, the
escalation and the reviewers' loads, asked by the store of the rows it reads in the transaction
that writes (store/desk_rows.py, store/queue.py)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import pytest

from claims_crew.desk import Assigner, DeskRules, desk_change_refusal, reassign_refusal
from claims_crew.desk.rules import FourEyes
from claims_crew.errors import OutsideAuthority, StoreError
from claims_crew.records import ReviewerSettings
from claims_crew.store import Store


@dataclass(frozen=True)
class Escalation:
    claim_id: str = "C-1"
    amount: str | None = "4200"
    excluded_reviewers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reviewer:
    name: str
    settings: ReviewerSettings
    load: int


def test_judge_refuses_beyond_authority_and_says_when_four_eyes_are_needed() -> None:
    rules = DeskRules(four_eyes=FourEyes(always=["not_covered"]))
    capped = ReviewerSettings(max_amount=Decimal("1000"))
    with pytest.raises(OutsideAuthority, match="bo may approve up to 1000; this claim is for 4200"):
        rules.judge("bo", capped, "covered", Escalation(), None)
    assert rules.judge("ana", ReviewerSettings(), "not_covered", Escalation(), None) is True
    assert rules.judge("ana", ReviewerSettings(), "covered", Escalation(), None) is False
    with pytest.raises(StoreError, match="a different reviewer decides the appeal"):
        rules.judge(
            "Ana", ReviewerSettings(), "covered", Escalation(excluded_reviewers=("ana",)), None
        )


def test_the_assigner_picks_by_line_then_load_and_says_why() -> None:
    home = ReviewerSettings(lines=["home"])
    rows = [
        Reviewer("cy", home, 2),
        Reviewer("ana", home, 1),
        Reviewer("bo", ReviewerSettings(lines=["auto"]), 0),
    ]
    assert Assigner()(rows, "home") == (
        "ana",
        "assigned to ana (line home; rule: line, then least_loaded; 1 open before this)",
    )
    name, reason = Assigner()(rows, "home", {"ana", "cy"})
    assert name is None and reason.endswith("left unassigned; not ana, cy")


def test_only_a_lead_changes_a_desk_that_has_one_or_reassigns() -> None:
    reviewer, lead = ReviewerSettings(), ReviewerSettings(role="lead")
    assert desk_change_refusal("ana", reviewer, 0) is None
    assert desk_change_refusal("ana", reviewer, 1) == (
        "ana is not a lead; once the desk has a lead, only a lead may change it"
    )
    assert desk_change_refusal("lee", lead, 1) is None
    assert reassign_refusal("ana", reviewer, 0) == "ana is not a lead; only a lead may reassign"
    assert reassign_refusal("lee", lead, 1) is None


def test_a_person_s_desk_change_is_refused_without_the_desk_s_rule() -> None:
    store = Store()
    store.add_reviewer("lee", ReviewerSettings(role="lead"))
    with pytest.raises(StoreError, match="needs the desk's rule"):
        store.set_reviewer("lee", actor="human:lee", may_deny=False)
    store.set_reviewer("lee", actor="human:lee", permit=desk_change_refusal, may_deny=False)
    assert [r.settings.may_deny for r in store.reviewer_list()] == [False]

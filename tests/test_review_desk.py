"""The review desk on both engines: reviewers' authority, assignment by line then load, a lead's
reassignment, and four eyes (a proposal another reviewer confirms or returns), each audited."""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import text

from claims_crew.cli import main
from claims_crew.desk import Assigner, DeskRules, reassign_refusal
from claims_crew.desk.rules import FourEyes
from claims_crew.errors import AlreadyDecided, OutsideAuthority, StoreError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ReviewerSettings
from claims_crew.store import Basis, Proposal, Review, Store
from tests.support.reviewers import as_reviewer, decide
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

DENIALS_TWICE = DeskRules(four_eyes=FourEyes(always=["not_covered"]))


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def escalate(store: Store, folder: Path, library: PolicyLibrary, claim_id: str, **kw: Any) -> None:
    """The water claim (4200 GBP, a home policy) escalated under `claim_id`."""
    loaded = water_loaded(folder, claim_id, **kw)
    store.record(record_for(loaded, library), None, loaded, Basis(line="home", assign=Assigner()))


def proposed_by_ana(folder: Path, library: PolicyLibrary, *others: str) -> tuple[Store, object]:
    """A store with ana and `others` registered, and ana's denial of C-1 proposed."""
    store = Store()
    for name in ("ana", *others):
        store.add_reviewer(name)
    escalate(store, folder, library, "C-1")
    return store, store.decide("C-1", "not_covered", "Seepage.", "ana", rules=DENIALS_TWICE)


def kinds(store: Store, claim_id: str) -> list[tuple[str, str, str | None]]:
    return [(e.kind, e.actor, e.answer) for e in store.audit_entries(claim_id)]


def test_a_decision_beyond_a_reviewer_s_authority_is_refused_with_the_reason(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    bo = store.add_reviewer("bo", ReviewerSettings(max_amount=Decimal("1000"), may_deny=False))
    escalate(store, tmp_path, sample_library, "C-1")
    with pytest.raises(OutsideAuthority, match="bo may approve up to 1000; this claim is for 4200"):
        store.decide("C-1", "covered", "Pipe burst.", "bo", rules=DeskRules())
    refused = decide(bo, "C-1", "not_covered", "x", "--clause", "7.1", "--reviewer", "bo", "--json")
    assert refused.exit_code == 2
    assert json.loads(refused.stdout)["error"]["message"] == "bo may not deny claims"
    assert store.escalation("C-1").state == "open"  # nothing half-written
    # Raised, the same reviewer may: the change is an audit entry of its own.
    lead = store.add_reviewer("lee", ReviewerSettings(role="lead"))
    assert as_reviewer(lead, "reviewers", "set", "bo", "--max-amount", "5000").exit_code == 0
    assert isinstance(
        store.decide("C-1", "covered", "Pipe burst.", "bo", rules=DeskRules()), Review
    )
    assert store.verify_audit().ok


def test_a_four_eyes_denial_needs_a_second_different_reviewer(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, proposed = proposed_by_ana(tmp_path, sample_library, "bo")
    assert isinstance(proposed, Proposal) and proposed.reviewer == "ana"
    assert store.escalation("C-1").state == "open"  # a proposal decides nothing
    with pytest.raises(OutsideAuthority, match="ana proposed this decision"):
        store.confirm("C-1", "ana", rules=DeskRules())
    with pytest.raises(StoreError, match="ana proposed not_covered"):
        store.decide(
            "C-1", "covered", "Other view.", "bo", rules=DeskRules()
        )  # the proposal waits first
    review = store.confirm("C-1", "bo", "Agreed: gradual seepage.", rules=DeskRules())
    assert (review.reviewer, review.decision) == ("bo", "not_covered")
    escalation = store.escalation("C-1")
    assert (escalation.state, escalation.decided_by) == ("decided", "bo")
    entries = store.audit_entries("C-1")
    proposal_entry = next(e for e in entries if e.kind == "proposed")
    human = next(e for e in entries if e.kind == "human")
    assert (proposal_entry.actor, proposal_entry.answer) == ("human:ana", "not_covered")
    assert (human.actor, human.confirms) == ("human:bo", proposal_entry.seq)
    assert store.verify_audit().ok


def test_a_returned_proposal_reopens_the_escalation_for_any_decision(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, _ = proposed_by_ana(tmp_path, sample_library, "bo")
    store.return_proposal("C-1", "bo", "The plumber's report says sudden.")
    assert store.proposal("C-1") is None
    assert isinstance(
        store.decide("C-1", "covered", "Sudden burst.", "bo", rules=DeskRules()), Review
    )
    assert [k for k, _, _ in kinds(store, "C-1")] == ["escalated", "proposed", "returned", "human"]
    assert store.verify_audit().ok


def test_two_reviewers_confirming_at_once_give_one_decision(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, _ = proposed_by_ana(tmp_path, sample_library, "bo", "cy")
    start = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def confirm(name: str) -> None:
        own = Store()  # each its own engine and connections, as two workers would have
        start.wait()
        try:
            outcomes[name] = own.confirm("C-1", name, rules=DeskRules())
        except StoreError as exc:
            outcomes[name] = exc

    threads = [threading.Thread(target=confirm, args=(n,)) for n in ("bo", "cy")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    won = [n for n, o in outcomes.items() if isinstance(o, Review)]
    lost = [o for o in outcomes.values() if isinstance(o, AlreadyDecided)]
    assert len(won) == 1 and len(lost) == 1, outcomes
    assert lost[0].decided_by == won[0]
    assert [r.reviewer for r in store.reviews("C-1")] == won
    assert [k for k, _, _ in kinds(store, "C-1")].count("human") == 1
    assert store.verify_audit().ok


def test_assignment_follows_line_then_load_and_a_lead_s_reassignment_is_audited(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    store.add_reviewer("ana", ReviewerSettings(lines=["home"]))
    store.add_reviewer("bo", ReviewerSettings(lines=["auto"]))
    store.add_reviewer("cy", ReviewerSettings(lines=["home", "travel"]))
    store.add_reviewer("lee", ReviewerSettings(role="lead", lines=["marine"]))
    for claim_id in ("C-1", "C-2", "C-3"):
        escalate(store, tmp_path, sample_library, claim_id)
    # home: ana and cy take it; the least loaded each time, ties to the first name.
    assert store.assignees(["C-1", "C-2", "C-3"]) == {"C-1": "ana", "C-2": "cy", "C-3": "ana"}
    assert store.audit_entries("C-2")[0].reviewer == "cy"  # named in its escalated entry
    with pytest.raises(OutsideAuthority, match="cy is not a lead"):
        store.reassign("C-1", "cy", "cy", "Balance.", permit=reassign_refusal)
    store.reassign("C-1", "bo", "lee", "Bo covers home this week.", permit=reassign_refusal)
    assert store.assignees(["C-1"]) == {"C-1": "bo"}
    assert ("assigned", "human:lee", None) in kinds(store, "C-1")
    mine = json.loads(cli("review", "list", "--mine", "--reviewer", "ana", "--json").stdout)
    assert [e["claim_id"] for e in mine["escalations"]] == ["C-3"]
    # An appeal leaves out the reviewer who decided: the rule picks among the others.
    assert store.assign("C-3", Assigner(), leave_out={"ana"}) == "cy"
    assert (
        store.assign("C-3", Assigner(), leave_out={"ana", "cy"}) is None
    )  # nobody else takes home
    listed = json.loads(cli("review", "list", "--json").stdout)["escalations"]
    assert next(e for e in listed if e["claim_id"] == "C-3")["assigned_to"] is None
    assert cli("audit", "verify").exit_code == 0


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (
            "UPDATE reviewers SET max_amount = '1000000' WHERE name = 'ana'",
            "reviewer ana's settings",
        ),
        (
            "UPDATE assignments SET reviewer = 'ana' WHERE claim_id = 'C-2'",
            "the assignment of claim C-2",
        ),
        ("UPDATE proposals SET state = 'confirmed', closed_by = 'bo'", "the proposal on claim C-1"),
        ("DELETE FROM proposals", "has no proposal row"),
    ],
    ids=["limit-raised", "assignment-moved", "proposal-marked-confirmed", "proposal-deleted"],
)
def test_a_desk_row_edited_under_the_trail_fails_audit_verify(
    tmp_path: Path, sample_library: PolicyLibrary, edit: str, named: str
) -> None:
    store = Store()
    store.add_reviewer("ana", ReviewerSettings(max_amount=Decimal("5000"), lines=["home"]))
    store.add_reviewer("bo", ReviewerSettings(lines=["home"]))
    for claim_id in ("C-1", "C-2"):
        escalate(store, tmp_path, sample_library, claim_id)
    store.decide("C-1", "not_covered", "Seepage.", "ana", rules=DENIALS_TWICE)
    assert store.verify_audit().ok
    with store.engine.begin() as conn:
        conn.execute(text(edit))
    verdict = store.verify_audit()
    assert not verdict.ok and named in (verdict.problem or ""), verdict


def test_a_run_assigns_its_escalation_by_the_policy_s_line(tmp_path: Path) -> None:
    """Through the real claim routine (the model scripted): the home policy's claim goes to
    the reviewer who takes home claims, not to the one who takes auto."""
    from rich.console import Console

    from claims_crew.cli.run import review_inbox
    from tests.support.crew import water_script

    store = Store()
    store.add_reviewer("al", ReviewerSettings(lines=["auto"]))
    store.add_reviewer("hu", ReviewerSettings(lines=["home"]))
    water_loaded(tmp_path / "inbox", "C-1042")
    assert review_inbox(tmp_path / "inbox", 1, Console(record=True), llm_for=water_script()) == 0
    assert store.assignees(["C-1042"]) == {"C-1042": "hu"}
    [escalated] = [e for e in store.audit_entries("C-1042") if e.kind == "escalated"]
    assert escalated.reviewer == "hu"

"""Deciding on a clause on the review page (TestClient, both engines): the form offers the
clause the re-read verified and takes any other; the confirmation step re-reads the clause and
computes the amount and records nothing; Confirm records them; a clause the wording lacks, or a
covered or not covered decision without one, is refused with the reason and nothing recorded."""

from __future__ import annotations

import re
import shutil
from datetime import date
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from claims_crew.errors import PolicyError
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.in_force import AMENDED_4_2_B, FORM_4_2_B, HM_E_07, amended, issued_by_hand
from tests.support.paths import ROOT, SAMPLE_POLICIES
from tests.support.store import water_escalated
from tests.support.web import csrf_of, signed_in

pytestmark = pytest.mark.usefixtures("engine")

HIDDEN = re.compile(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">')


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary, warm_index: None) -> Store:
    """C-1042 escalated as the design's example: policy's 4.2(b) verified by the re-read. The
    page opens the policy from the home's index, there already (warm_index): each test would
    read the PDF again, and none is about reading it."""
    return water_escalated(tmp_path / "inbox", sample_library)


def form_of(c: TestClient, **fields: str | list[str]) -> dict[str, str | list[str]]:
    """The decide form as the page fills it: its CSRF token and version, and `fields`."""
    html = c.get("/escalations/C-1042").text
    return {"csrf": csrf_of(html), "version": "1", "reason": "Dated by the plumber.", **fields}


def confirm_form(html: str) -> dict[str, list[str]]:
    """The hidden fields the confirmation step's Confirm button posts."""
    fields: dict[str, list[str]] = {}
    for name, value in HIDDEN.findall(html):
        fields.setdefault(name, []).append(unescape(value))
    return fields


def nothing_recorded(store: Store, entries: int) -> None:
    assert store.reviews() == []
    assert store.proposal("C-1042") is None
    assert len(store.audit_entries("C-1042")) == entries
    assert store.escalation("C-1042").state == "open"


def test_the_form_offers_the_verified_clause_and_any_other(store: Store) -> None:
    html = signed_in(store).get("/escalations/C-1042").text
    assert 'action="/escalations/C-1042/check"' in html  # the form confirms before it records
    offer = html.split('id="clause-offer"')[1].split("</fieldset>")[0]
    boxes = re.findall(r'type="checkbox" name="clause" value="([^"]+)"', offer)
    assert boxes[0] == "4.2(b)"  # verified first
    others = re.findall(r'<option value="([^"]+)">', offer)
    assert "7.1(a)" in others and "9.2" in others and "4.2(b)" not in others


def test_the_confirmation_step_reads_the_clause_back_and_records_only_on_confirm(
    store: Store,
) -> None:
    c = signed_in(store)
    entries = len(store.audit_entries("C-1042"))
    checked = c.post(
        "/escalations/C-1042/check", data=form_of(c, decision="covered", clause=["4.2(b)"])
    )
    assert checked.status_code == 200
    step = checked.text
    assert 'id="confirm-step"' in step and "verified by the re-read" in step
    clause = step.split('id="chosen-clause-1"')[1].split("</article>")[0]
    assert "4.2(b)" in clause and "sudden and accidental discharge of water" in clause
    amount = re.search(r'id="confirm-amount">([0-9.]+) GBP<', step)
    assert amount is not None
    nothing_recorded(store, entries)

    fields = confirm_form(step)
    assert fields["clause"] == ["4.2(b)"] and fields["decision"] == ["covered"]
    done = c.post("/escalations/C-1042/decide", data=fields)
    assert done.status_code == 303
    [review] = store.reviews()
    assert [k.clause_id for k in review.clauses] == ["4.2(b)"]
    assert "sudden and accidental discharge" in review.clauses[0].text
    assert review.payable is not None and str(review.payable.amount) == amount[1]
    page = c.get("/escalations/C-1042").text
    assert 'id="decided"' in page and "4.2(b)" in page.split('id="letter-preview"')[1]
    assert store.verify_audit().ok


def test_a_typed_clause_is_re_read_beside_a_ticked_one(store: Store) -> None:
    c = signed_in(store)
    form = form_of(c, decision="covered", clause=["4.2(b)"], other_clause=" 9.2 ")
    step = c.post("/escalations/C-1042/check", data=form).text
    assert confirm_form(step)["clause"] == ["4.2(b)", "9.2"]
    assert "Escape of water limit" in step and "named by you" in step


@pytest.mark.parametrize("where", ["check", "decide"])
def test_a_clause_the_wording_lacks_is_refused_with_the_reason(store: Store, where: str) -> None:
    c = signed_in(store)
    entries = len(store.audit_entries("C-1042"))
    # Typed in the form's field for another clause; named among the clauses Confirm posts.
    named = {"other_clause": "Z.99"} if where == "check" else {"clause": ["4.2(b)", "Z.99"]}
    form = form_of(c, decision="covered", **{"clause": ["4.2(b)"], **named})
    refused = c.post(f"/escalations/C-1042/{where}", data=form)
    assert refused.status_code == 400
    said = unescape(refused.text.split('id="decide-error">')[1].split("</p>")[0])
    assert "clause 'Z.99' is not in the wording in force of policy HM-HOME-001" in said
    assert 'id="confirm-step"' not in refused.text
    nothing_recorded(store, entries)
    # The form comes back as it was filled in, to be corrected.
    page = refused.text
    assert 'value="covered" id="decision-covered" required checked>' in page
    assert 'value="4.2(b)" id="clause-1" checked>' in page
    assert 'id="reason" required>Dated by the plumber.</textarea>' in page
    if where == "check":
        assert 'id="other-clause" list="clause-ids" autocomplete="off" value="Z.99">' in page


@pytest.mark.parametrize("where", ["check", "decide"])
@pytest.mark.parametrize("decision", ["covered", "not_covered"])
def test_covered_or_not_covered_without_a_clause_is_refused(
    store: Store, where: str, decision: str
) -> None:
    c = signed_in(store)
    entries = len(store.audit_entries("C-1042"))
    refused = c.post(f"/escalations/C-1042/{where}", data=form_of(c, decision=decision))
    assert refused.status_code == 400
    said = unescape(refused.text.split('id="decide-error">')[1].split("</p>")[0])
    assert f"a {decision} decision must name the clause(s) it rests on" in said
    assert "4.2(b)" in said  # the clause the re-read verified, offered
    nothing_recorded(store, entries)


def test_needs_more_evidence_names_no_clause(store: Store) -> None:
    c = signed_in(store)
    step = c.post("/escalations/C-1042/check", data=form_of(c, decision="needs_more_evidence"))
    assert step.status_code == 200 and 'id="no-clause"' in step.text
    assert "No amount is payable on a needs_more_evidence decision" in step.text
    fields = confirm_form(step.text)
    assert "clause" not in fields
    assert c.post("/escalations/C-1042/decide", data=fields).status_code == 303
    [review] = store.reviews()
    assert review.decision == "needs_more_evidence" and review.clauses == ()


def test_the_desk_may_let_a_decision_name_no_clause(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    desk = (config / "desk.yaml").read_text(encoding="utf-8")
    allowed = "decide_without_clause: [needs_more_evidence, covered]\n"
    (config / "desk.yaml").write_text(
        re.sub(r"(?m)^decide_without_clause:.*\n", allowed, desk), encoding="utf-8"
    )
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    c = signed_in(store)
    assert "needs_more_evidence, covered may name none" in c.get("/escalations/C-1042").text
    step = c.post("/escalations/C-1042/check", data=form_of(c, decision="covered"))
    assert step.status_code == 200 and 'id="no-clause"' in step.text
    refused = c.post("/escalations/C-1042/check", data=form_of(c, decision="not_covered"))
    assert refused.status_code == 400


def test_the_confirmation_says_which_endorsement_amended_the_clause(
    tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = issued_by_hand(
        PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=session_cache), monkeypatch
    )

    def in_force(self: PolicyLibrary, policy_id: str, number: str, on: date) -> PolicyDocument:
        return amended(self.open(policy_id), {"4.2(b)": AMENDED_4_2_B}, {"4.2(b)": HM_E_07})

    monkeypatch.setattr(PolicyLibrary, "in_force", in_force)
    c = signed_in(water_escalated(tmp_path / "inbox", library, policy_number="HM-25-00417"))
    step = c.post(
        "/escalations/C-1042/check", data=form_of(c, decision="covered", clause=["4.2(b)"])
    ).text
    clause = step.split('id="chosen-clause-1"')[1].split("</article>")[0]
    assert "as amended by endorsement HM-E-07 (page 1)" in clause
    assert "less than 10 years old at the time of the loss" in unescape(clause)
    assert FORM_4_2_B not in unescape(clause)  # the form's own words are not in force


def test_a_second_reviewer_sees_the_clause_a_denial_was_proposed_on(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped desk.yaml: every denial needs four eyes."""
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    ana, cy = signed_in(store, "ana"), signed_in(store, "cy")
    step = ana.post(
        "/escalations/C-1042/check",
        data=form_of(ana, decision="not_covered", clause=["7.1(a)"], reason="Seepage."),
    )
    assert ana.post("/escalations/C-1042/decide", data=confirm_form(step.text)).status_code == 303
    proposal = store.proposal("C-1042")
    assert proposal is not None and [k.clause_id for k in proposal.clauses] == ["7.1(a)"]
    theirs = cy.get("/escalations/C-1042").text
    shown = theirs.split('id="proposal-clause-1"')[1].split("</article>")[0]
    assert "7.1(a)" in shown and "continuous or repeated seepage" in shown
    csrf = csrf_of(theirs)
    assert cy.post("/escalations/C-1042/confirm", data={"csrf": csrf}).status_code == 303
    [review] = store.reviews()
    assert review.reviewer == "cy" and [k.clause_id for k in review.clauses] == ["7.1(a)"]


def test_a_policy_that_cannot_be_read_is_said_and_decides_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(self: PolicyLibrary, *args: object) -> PolicyDocument:
        raise PolicyError("malformed", "harbour_home.pdf: the PDF cannot be read")

    monkeypatch.setattr(PolicyLibrary, "for_claim", unreadable)
    c = signed_in(store)
    entries = len(store.audit_entries("C-1042"))
    page = c.get("/escalations/C-1042").text
    said = page.split('id="offer-problem">')[1].split("</p>")[0]
    assert "harbour_home.pdf: the PDF cannot be read" in said
    form = form_of(c, decision="covered", other_clause="4.2(b)")
    refused = c.post("/escalations/C-1042/check", data=form)
    assert refused.status_code == 500
    assert "Nothing was decided: harbour_home.pdf: the PDF cannot be read" in refused.text
    nothing_recorded(store, entries)

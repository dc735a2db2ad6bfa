"""Escalations opened before anyone could take them go out once a reviewer is added or changed,
by the desk's own rule, each as an `assigned` entry; until then the queue says how to add one
(both engines: the CLI as a person runs it, the page through TestClient)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from claims_crew.cli import main
from claims_crew.desk import Assigner
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ReviewerSettings
from claims_crew.store import Basis, Store
from tests.support.reviewers import as_reviewer
from tests.support.store import record_for, water_loaded
from tests.support.web import client

pytestmark = pytest.mark.usefixtures("engine")

NO_REVIEWER_YET = "no reviewer yet: add one with `claims-crew reviewers add NAME`"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})


def escalate(store: Store, folder: Path, library: PolicyLibrary, claim_id: str, **kw: Any) -> None:
    """The water claim (a home policy) escalated under `claim_id`, assigned by the rule."""
    loaded = water_loaded(folder, claim_id)
    basis = Basis(line="home", assign=Assigner(), **kw)
    store.record(record_for(loaded, library), None, loaded, basis)


def assigned_entries(store: Store, claim_id: str) -> list[tuple[str, str | None, str]]:
    return [
        (e.actor, e.reviewer, e.reason)
        for e in store.audit_entries(claim_id)
        if e.kind == "assigned"
    ]


def test_the_first_reviewer_takes_what_waited_and_the_queue_said_how_to_add_one(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    for claim_id in ("C-1", "C-2", "C-3"):
        escalate(store, tmp_path / "inbox", sample_library, claim_id)
    assert store.assignees(["C-1", "C-2", "C-3"]) == {"C-1": None, "C-2": None, "C-3": None}
    listed = cli("review", "list")
    assert listed.exit_code == 0, listed.output
    assert f"C-1: escalated; {NO_REVIEWER_YET}" in listed.output
    assert "no reviewer fits" not in listed.output
    login = client(store).get("/login").text
    assert 'id="no-reviewer"' in login and "<code>claims-crew reviewers add NAME</code>" in login

    added = cli("reviewers", "add", "dana")
    assert added.exit_code == 0, added.output
    assert "assigned 3 open escalations to dana: C-1, C-2, C-3" in added.output
    assert store.assignees(["C-1", "C-2", "C-3"]) == {"C-1": "dana", "C-2": "dana", "C-3": "dana"}
    [(actor, reviewer, reason)] = assigned_entries(store, "C-2")
    assert (actor, reviewer) == ("desk", "dana")
    assert reason.startswith("assigned to dana (line home; rule: line, then least_loaded; 1 open")
    assert reason.endswith("after reviewer dana was added")
    assert "C-1: escalated; dana" in cli("review", "list").output
    assert 'id="no-reviewer"' not in client(store).get("/login").text
    assert store.verify_audit().ok


def test_a_reviewer_changed_to_fit_takes_what_nobody_fitted_and_json_says_so(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    bo = store.add_reviewer("bo", ReviewerSettings(lines=["auto"]))
    escalate(store, tmp_path / "inbox", sample_library, "C-1")
    listed = cli("review", "list").output
    assert "C-1: escalated; unassigned: no reviewer fits its line of business" in listed
    assert "no reviewer yet" not in listed
    page = client(store)
    csrf = page.get("/login").context["csrf"]  # type: ignore[attr-defined]
    assert page.post("/login", data={"token": bo, "csrf": csrf}).status_code == 303
    shown = page.get("/escalations/C-1").text
    assert "Unassigned: no reviewer fits its line of business" in shown
    assert 'id="reassign"' not in shown  # bo is no lead: the form is a lead's
    changed = as_reviewer(bo, "reviewers", "set", "bo", "--line", "auto", "--line", "home")
    assert changed.exit_code == 0, changed.output
    assert "assigned 1 open escalation to bo: C-1" in changed.output
    [(actor, reviewer, reason)] = assigned_entries(store, "C-1")
    assert (actor, reviewer) == ("desk", "bo") and reason.endswith("bo's settings changed")
    # Nothing left waiting: a later change assigns nothing and says nothing of it.
    again = as_reviewer(bo, "reviewers", "set", "bo", "--may-deny", "no", "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["assigned"] == []
    assert len(assigned_entries(store, "C-1")) == 1
    assert store.verify_audit().ok


def test_an_appeal_never_goes_to_its_earlier_reviewer_when_reviewers_come(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    escalate(store, tmp_path / "inbox", sample_library, "C-1", excluded_reviewers=("dana",))
    escalate(store, tmp_path / "inbox", sample_library, "C-2")
    added = cli("reviewers", "add", "dana", "--json")
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["assigned"] == [{"claim_id": "C-2", "reviewer": "dana"}]
    assert store.assignees(["C-1"]) == {"C-1": None}
    assert assigned_entries(store, "C-1") == []  # still nobody: no entry written
    dana = json.loads(added.stdout)["token"]
    eve = as_reviewer(dana, "reviewers", "add", "eve", "--line", "home")
    assert eve.exit_code == 0, eve.output
    assert "assigned 1 open escalation to eve: C-1" in eve.output
    assert store.assignees(["C-1", "C-2"]) == {"C-1": "eve", "C-2": "dana"}
    # The rule's own order holds: with both free, the least loaded takes the next one.
    escalate(store, tmp_path / "inbox", sample_library, "C-3")
    assert store.assignees(["C-3"]) == {"C-3": "dana"}  # dana 1, eve 1: first by name
    assert store.verify_audit().ok


def test_a_failure_to_hand_out_the_waiting_escalations_never_loses_the_new_token(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claims_crew.errors import StoreError

    store = Store()
    escalate(store, tmp_path / "inbox", sample_library, "C-1")

    def fails(*_: object) -> list[tuple[str, str]]:
        raise StoreError("the database went away")

    monkeypatch.setattr(Store, "assign_waiting", fails)
    added = cli("reviewers", "add", "dana")
    assert added.exit_code == 0, added.output
    lines = added.output.splitlines()
    token = lines[lines.index("Reviewer dana added. Sign-in token (shown once, keep it safe):") + 1]
    assert store.sign_in(token, "test") is not None
    assert "the open escalations were not assigned: the database went away" in added.output
    assert store.assignees(["C-1"]) == {"C-1": None}

"""Acting as a reviewer on the command line takes that reviewer's token, every desk change
names who made it, and reviewer names are one person however they are cased or spaced: on
both engines."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import Result
from sqlalchemy import text

from claims_crew.cli.acting import TOKEN_VARIABLE, os_user
from claims_crew.desk import Assigner, DeskRules
from claims_crew.desk.rules import FourEyes
from claims_crew.errors import NotFound, StoreError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import PersonClause, ReviewerSettings, among, name_key, same_person
from claims_crew.store import Basis, Proposal, SignInLimits, Store, command_line_client
from claims_crew.store.schema import current_revision
from tests.support.reviewers import as_reviewer, decide
from tests.support.store import back_to, record_for, water_loaded

# The clause a refusal of the water claim rests on, as a proposal keeps it.
SEEPAGE = (
    PersonClause(clause_id="7.1", text="continuous or repeated seepage or leakage", verified=True),
)

pytestmark = pytest.mark.usefixtures("engine")

WRONG = "not-anybody-s-token-0123456789abcdefghijklmnopq"


def escalated(folder: Path, library: PolicyLibrary, *names: str) -> tuple[Store, list[str]]:
    """The water claim escalated as C-1, and the reviewers named, with their tokens."""
    store = Store()
    tokens = [store.add_reviewer(name) for name in names]
    loaded = water_loaded(folder, "C-1")
    store.record(record_for(loaded, library), None, loaded, Basis(line="home", assign=Assigner()))
    return store, tokens


def refused(result: Result, says: str) -> None:
    assert result.exit_code == 2, result.output
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "not_signed_in" and says in error["message"]


@pytest.mark.parametrize(
    ("whose", "says"),
    [
        ("none", TOKEN_VARIABLE),
        ("wrong", "not valid"),
        ("bo's", "the token given is bo's, not ana's"),
    ],
)
def test_decide_without_the_reviewer_s_own_token_writes_nothing(
    tmp_path: Path, sample_library: PolicyLibrary, whose: str, says: str
) -> None:
    store, (_ana, bo) = escalated(tmp_path, sample_library, "ana", "bo")
    token = {"none": None, "wrong": WRONG, "bo's": bo}[whose]
    before = len(store.audit_entries("C-1"))
    refused(decide(token, "C-1", "covered", "Pipe burst.", "--reviewer", "ana", "--json"), says)
    assert store.escalation("C-1").state == "open" and store.reviews() == []
    assert len(store.audit_entries("C-1")) == before


def test_decide_with_the_token_acts_as_its_owner(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, (ana,) = escalated(tmp_path, sample_library, "ana")
    # --reviewer is checked, not trusted: the same person however it is cased.
    done = decide(
        ana, "C-1", "covered", "Pipe burst.", "--clause", "4.2(b)", "--reviewer", " ANA ", "--json"
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["review"]["reviewer"] == "ana"
    human = store.audit_entries("C-1")[-1]
    assert (human.kind, human.actor) == ("human", "human:ana")


# Failures enough for the longest wait (2 ** 10 s, capped at 15 minutes, after the 5 free), so
# that it is due however slowly the test runs; fewer than the 50 that hold everyone back.
MANY = 15


def failed(store: Store, clients: list[str]) -> None:
    """Failed sign-ins on record for these clients, as of now."""
    now = store.clock().timestamp()
    with store.write() as conn:
        for client in clients:
            conn.execute(
                text("INSERT INTO sign_in_attempts (client, at) VALUES (:client, :at)"),
                {"client": client, "at": now},
            )


def throttled(result: Result) -> None:
    assert result.exit_code == 2, result.output
    assert "too many failed sign-ins" in json.loads(result.stdout)["error"]["message"]


def test_the_command_line_s_wrong_tokens_are_throttled_as_the_page_s(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    """Failures on record for the name claimed at the command line hold back even the right
    token, unread."""
    store, (ana,) = escalated(tmp_path, sample_library, "ana")
    failed(store, [command_line_client("ana")] * MANY)
    throttled(decide(ana, "C-1", "covered", "Pipe burst.", "--reviewer", "ANA", "--json"))
    assert store.escalation("C-1").state == "open" and store.reviews() == []


def test_another_os_user_is_throttled_for_the_same_name(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OS user is whatever USER and LOGNAME say: changing them starts nothing afresh."""
    store, (ana,) = escalated(tmp_path, sample_library, "ana")
    monkeypatch.setenv("USER", "mallory")
    monkeypatch.setenv("LOGNAME", "mallory")
    for _ in range(5):  # the free ones
        refused(decide(WRONG, "C-1", "covered", "x", "--reviewer", "ana", "--json"), "not valid")
    with store.write() as conn:  # and as many again, twice: the longest wait
        for _ in range(2):
            conn.execute(
                text(
                    "INSERT INTO sign_in_attempts (client, at) "
                    "SELECT client, at FROM sign_in_attempts"
                )
            )
    monkeypatch.setenv("USER", "someoneelse")
    monkeypatch.setenv("LOGNAME", "someoneelse")
    throttled(decide(WRONG, "C-1", "covered", "x", "--reviewer", "ana", "--json"))
    monkeypatch.setenv("CLAIMS_CREW_REVIEWER", "Ana")  # the name claimed by the setting
    throttled(decide(ana, "C-1", "covered", "Pipe burst.", "--json"))
    assert store.escalation("C-1").state == "open" and store.reviews() == []


def test_wrong_tokens_under_many_names_meet_the_command_line_s_ceiling(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, (ana,) = escalated(tmp_path, sample_library, "ana")
    ceiling = SignInLimits().command_line_ceiling
    assert ceiling < SignInLimits().global_free  # so that only the ceiling holds
    failed(store, [f"cli:reviewer:guess-{i}" for i in range(ceiling)])
    throttled(decide(ana, "C-1", "covered", "Pipe burst.", "--reviewer", "ana", "--json"))
    assert store.escalation("C-1").state == "open" and store.reviews() == []


def test_confirm_return_and_assign_take_the_token_too(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, (_ana, bo) = escalated(tmp_path, sample_library, "ana", "bo")
    lee = store.add_reviewer("lee", ReviewerSettings(role="lead"))
    rules = DeskRules(four_eyes=FourEyes(always=["not_covered"]))
    proposed = store.decide("C-1", "not_covered", "Seepage.", "ana", rules=rules, clauses=SEEPAGE)
    assert isinstance(proposed, Proposal)
    refused(as_reviewer(None, "review", "confirm", "C-1", "--reviewer", "bo", "--json"), "token")
    refused(as_reviewer(WRONG, "review", "return", "C-1", "--reason", "No.", "--json"), "not valid")
    refused(
        as_reviewer(bo, "review", "assign", "C-1", "--to", "bo", "--lead", "lee", "--reason",
                    "Mine now.", "--json"),
        "bo's, not lee's",
    )  # fmt: skip
    assert store.proposal("C-1") is not None and store.escalation("C-1").state == "open"
    moved = as_reviewer(lee, "review", "assign", "C-1", "--to", "bo", "--reason", "Away.")
    assert moved.exit_code == 0, moved.output
    assert store.audit_entries("C-1")[-1].actor == "human:lee"
    confirmed = as_reviewer(bo, "review", "confirm", "C-1", "--json")
    assert confirmed.exit_code == 0, confirmed.output
    assert store.escalation("C-1").decided_by == "bo"


def test_every_desk_change_names_who_made_it() -> None:
    # The first reviewer of an empty store: nobody to vouch for it, so the OS user, said so.
    first = as_reviewer(None, "reviewers", "add", "lee", "--role", "lead", "--json")
    assert first.exit_code == 0, first.output
    lee = json.loads(first.stdout)["token"]
    store = Store()
    [setup] = store.audit_entries("")
    assert setup.actor == f"cli:{os_user()}"
    assert "no reviewer existed yet" in (setup.reason or "") and os_user() in (setup.reason or "")
    # After that, only a reviewer proven by their token changes the desk.
    refused(as_reviewer(None, "reviewers", "add", "ana", "--json"), TOKEN_VARIABLE)
    refused(as_reviewer(WRONG, "reviewers", "set", "lee", "--may-deny", "no", "--json"), "valid")
    assert [r.name for r in store.reviewer_list()] == ["lee"]
    for change in (
        ["reviewers", "add", "ana", "--line", "home"],
        ["reviewer", "add", "cy"],  # the defaults: an entry all the same, naming who
        ["reviewers", "set", "ana", "--max-amount", "500"],
    ):
        assert as_reviewer(lee, *change).exit_code == 0, change
    entries = store.audit_entries("")[1:]
    assert [(e.kind, e.reviewer, e.actor) for e in entries] == [
        ("reviewer", "ana", "human:lee"),
        ("reviewer", "cy", "human:lee"),
        ("reviewer", "ana", "human:lee"),
    ]
    assert store.verify_audit().ok


def test_once_the_desk_has_a_lead_a_reviewer_cannot_raise_their_own_authority() -> None:
    store = Store()
    ana = store.add_reviewer("ana", ReviewerSettings(max_amount=Decimal("500")))
    # No lead yet: any reviewer changes the desk, as before roles existed.
    assert as_reviewer(ana, "reviewers", "set", "ana", "--max-amount", "800").exit_code == 0
    lee = store.add_reviewer("lee", ReviewerSettings(role="lead"))
    raised = as_reviewer(ana, "reviewers", "set", "ana", "--max-amount", "1000000", "--json")
    assert raised.exit_code == 2, raised.output
    assert "only a lead may change it" in json.loads(raised.stdout)["error"]["message"]
    assert as_reviewer(ana, "reviewers", "add", "cy", "--json").exit_code == 2
    assert {r.name: r.settings.max_amount for r in store.reviewer_list()} == {
        "ana": Decimal("800"),
        "lee": None,
    }
    assert as_reviewer(lee, "reviewers", "set", "ana", "--max-amount", "900").exit_code == 0


@pytest.mark.parametrize("again", ["Bo", " bo ", "BO", "\uff42\uff4f"])  # the last: full-width
def test_a_name_differing_only_in_case_or_space_is_the_same_reviewer(again: str) -> None:
    store = Store()
    store.add_reviewer("bo")
    with pytest.raises(StoreError, match="a reviewer named 'bo' already exists"):
        store.add_reviewer(again)
    assert [r.name for r in store.reviewer_list()] == ["bo"]


def test_one_person_cannot_confirm_their_own_proposal_under_another_case(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, (bo,) = escalated(tmp_path, sample_library, "bo")
    rules = DeskRules(four_eyes=FourEyes(always=["not_covered"]))
    store.decide("C-1", "not_covered", "Seepage.", "bo", rules=rules, clauses=SEEPAGE)
    added = as_reviewer(bo, "reviewer", "add", "Bo", "--json")
    assert added.exit_code == 2 and "already exists" in added.stdout
    with pytest.raises(NotFound):
        store.confirm("C-1", "Bo", rules=DeskRules())
    # "Bo" with bo's token is bo, who proposed it.
    own = as_reviewer(bo, "review", "confirm", "C-1", "--reviewer", "Bo", "--json")
    assert own.exit_code == 2
    assert "bo proposed this decision" in json.loads(own.stdout)["error"]["message"]
    assert store.escalation("C-1").state == "open"


def test_names_compare_by_their_key() -> None:
    assert name_key("  Bö ") == name_key("BÖ") == "bö"
    assert same_person("Straße", "STRASSE") and not same_person("bo", "bob")
    assert among(" BO", ["ana", "bo"]) and not among("bo", [])


def _register_behind_the_store(store: Store, *names: str) -> None:
    with store.write() as conn:
        for i, name in enumerate(names):
            conn.execute(
                text(
                    "INSERT INTO reviewers (name, token_sha256, created_at) "
                    "VALUES (:name, :token, :at)"
                ),
                {"name": name, "token": f"sha-{i}", "at": f"2026-01-0{i + 1}T00:00:00Z"},
            )


def test_an_older_store_with_two_spellings_of_one_name_is_not_upgraded() -> None:
    store = Store()
    back_to(store, "0016_claim_failures")
    _register_behind_the_store(store, "bo", "Bo", "ana")
    with pytest.raises(StoreError, match="this store has 'bo' and 'Bo': rename or remove"):
        Store()
    with store.engine.connect() as conn:
        assert current_revision(conn) == "0016_claim_failures"  # left as it was
    with store.write() as conn:
        conn.execute(text("DELETE FROM reviewers WHERE name = 'Bo'"))
    upgraded = Store()
    assert [r.name for r in upgraded.reviewer_list()] == ["ana", "bo"]
    with pytest.raises(StoreError, match="'bo' already exists"):
        upgraded.add_reviewer("BO")

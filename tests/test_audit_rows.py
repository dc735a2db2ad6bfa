"""`audit verify` checks the rows the audit entries recorded, not only the chain itself.

Each tampering below edits decisions, escalations, reviews or resolutions in the database and
leaves the hash chain alone, so the chain still verifies; the rows no longer agree with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import Connection, text
from sqlalchemy.exc import DataError

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store, audit
from tests.support.store import accepted_answers, record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """Entries: 1 C-1042 escalated (open), 2 C-2000 accepted, 3 C-3000 escalated, 4 ana's
    review of C-3000."""
    store = Store()
    store.add_reviewer("ana")
    for claim_id, answers in (("C-1042", {}), ("C-2000", accepted_answers()), ("C-3000", {})):
        loaded = water_loaded(tmp_path / "inbox", claim_id)
        store.record(record_for(loaded, sample_library, **answers), None, loaded)
    store.decide("C-3000", "not_covered", "Seepage over weeks.", "ana", rules=DeskRules())
    kinds = [e.kind for c in ("C-1042", "C-2000", "C-3000") for e in store.audit_entries(c)]
    assert kinds == ["escalated", "auto", "escalated", "human"]
    assert store.verify_audit() == audit.Verdict(True, 4)
    return store


# A tampering is an SQL statement, or for what SQL would spell per engine (JSON), a function.
Tampering = str | Callable[[Connection], None]


def _tamper(store: Store, *statements: Tampering) -> None:
    """Change the rows behind the store's back, in one transaction on its database."""
    with store.write() as conn:
        for statement in statements:
            if isinstance(statement, str):
                conn.execute(text(statement))
            else:
                statement(conn)


def _set_resolution_body(claim_id: str, **fields: Any) -> Callable[[Connection], None]:
    """Set fields of the JSON body of a claim's resolution, the rest of it as it was."""

    def tamper(conn: Connection) -> None:
        select_body = text("SELECT id, body FROM resolutions WHERE claim_id = :c")
        for row in conn.execute(select_body, {"c": claim_id}).all():
            body = json.dumps({**json.loads(row.body), **fields})
            conn.execute(
                text("UPDATE resolutions SET body = :b WHERE id = :i"), {"b": body, "i": row.id}
            )

    return tamper


def test_an_escalation_quietly_turned_into_an_automatic_decision_is_caught(store: Store) -> None:
    _tamper(
        store,
        "UPDATE decisions SET outcome = 'ACCEPTED', answer = 'covered' WHERE claim_id = 'C-1042'",
        "UPDATE escalations SET state = 'decided' WHERE claim_id = 'C-1042'",
    )
    assert store.open_count() == 0  # the queue no longer shows it
    with store.read() as conn:
        assert audit.verify(conn, store.audit_key()).ok  # the chain alone cannot tell
    verdict = store.verify_audit()
    assert not verdict.ok and verdict.first_bad == 1
    assert verdict.problem == (
        "the decision of claim C-1042 says outcome 'ACCEPTED', its audit entry 1 says 'ESCALATED'"
    )
    result = CliRunner().invoke(main, ["audit", "verify"])
    assert result.exit_code == 1
    assert "BROKEN at entry 1: the decision of claim C-1042 says outcome" in result.stderr


TAMPERINGS = [
    pytest.param(
        ["UPDATE escalations SET state = 'decided' WHERE claim_id = 'C-1042'"],
        1,
        "the escalation of claim C-1042 says state 'decided'",
        id="escalation-closed-without-review",
    ),
    pytest.param(
        ["DELETE FROM escalations WHERE claim_id = 'C-1042'"],
        1,
        "audit entry 1 (escalated, claim C-1042) has no escalation row",
        id="escalation-deleted",
    ),
    pytest.param(
        ["UPDATE escalations SET question = 'Anything?' WHERE claim_id = 'C-1042'"],
        1,
        "the escalation of claim C-1042 says question 'Anything?'",
        id="escalation-question",
    ),
    pytest.param(
        ["UPDATE escalations SET reason_codes = '[]' WHERE claim_id = 'C-1042'"],
        1,
        "the escalation of claim C-1042 says reason codes []",
        id="escalation-reason-codes",
    ),
    pytest.param(
        ["UPDATE decisions SET answer = 'not_covered' WHERE claim_id = 'C-2000'"],
        2,
        "the decision of claim C-2000 says answer 'not_covered', its audit entry 2 says 'covered'",
        id="decision-answer",
    ),
    pytest.param(
        ["UPDATE decisions SET decided_by = 'adjudicator' WHERE claim_id = 'C-2000'"],
        2,
        "says decided by 'adjudicator'",
        id="decision-actor",
    ),
    pytest.param(
        ["UPDATE decisions SET audit_seq = 99 WHERE claim_id = 'C-2000'"],
        2,
        "audit entry 2 (auto, claim C-2000) has no decision row",
        id="decision-points-elsewhere",
    ),
    pytest.param(
        # The validation goes first: its foreign key would keep the decision otherwise.
        [
            "DELETE FROM validations WHERE claim_id = 'C-2000'",
            "DELETE FROM decisions WHERE claim_id = 'C-2000'",
        ],
        2,
        "audit entry 2 (auto, claim C-2000) has no decision row",
        id="decision-deleted",
    ),
    pytest.param(
        ["UPDATE decisions SET audit_seq = 4 WHERE claim_id = 'C-2000'"],
        2,
        "audit entry 2 (auto, claim C-2000) has no decision row",
        id="decision-points-at-a-human-entry",
    ),
    pytest.param(
        [_set_resolution_body("C-2000", answer="not_covered")],
        2,
        "the resolution behind the decision of claim C-2000 says answer 'not_covered'",
        id="resolution-body",
    ),
    pytest.param(
        ["UPDATE resolutions SET rule = 'prefer' WHERE claim_id = 'C-2000'"],
        2,
        "the resolution behind the decision of claim C-2000 says rule 'prefer'",
        id="resolution-column",
    ),
    pytest.param(
        ["UPDATE reviews SET decision = 'covered' WHERE claim_id = 'C-3000'"],
        4,
        "the review of claim C-3000 says decision 'covered', its audit entry 4 says 'not_covered'",
        id="review-decision",
    ),
    pytest.param(
        ["UPDATE reviews SET reviewer = 'bo' WHERE claim_id = 'C-3000'"],
        4,
        "the review of claim C-3000 says reviewer 'human:bo', its audit entry 4 says 'human:ana'",
        id="review-reviewer",
    ),
    pytest.param(
        [
            "DELETE FROM reviews WHERE claim_id = 'C-3000'",
            "UPDATE escalations SET state = 'open', decided_by = NULL, decided_at = NULL, "
            "decision = NULL WHERE claim_id = 'C-3000'",
        ],
        4,
        "audit entry 4 (human, claim C-3000) has no review row",
        id="review-deleted-and-reopened",
    ),
    pytest.param(
        ["UPDATE escalations SET decision = 'covered' WHERE claim_id = 'C-3000'"],
        4,
        "the escalation of claim C-3000 says decision 'covered', the review that decided it "
        "says 'not_covered'",
        id="escalation-decision-differs-from-review",
    ),
    pytest.param(
        ["UPDATE resolutions SET body = 'not json' WHERE claim_id = 'C-2000'"],
        2,
        "the resolution behind the decision of claim C-2000 says outcome None",
        id="resolution-body-not-json",
    ),
    pytest.param(
        ["UPDATE audit_log SET claim_id = 'C-9999' WHERE seq = 2"],
        2,
        "entry 2: its row's claim id or time differs from the entry",
        id="audit-row-claim-column",
    ),
]


@pytest.mark.parametrize(("statements", "first_bad", "problem"), TAMPERINGS)
def test_a_row_that_disagrees_with_its_entry_is_named(
    store: Store, statements: list[Tampering], first_bad: int | None, problem: str
) -> None:
    _tamper(store, *statements)
    verdict = store.verify_audit()
    assert not verdict.ok
    assert verdict.first_bad == first_bad, verdict
    assert verdict.problem is not None and problem in verdict.problem, verdict.problem
    assert verdict.entries == 4 or "row's claim id" in problem


def test_the_first_problem_in_entry_order_is_named(store: Store) -> None:
    _tamper(
        store,
        "UPDATE reviews SET reason = 'changed' WHERE claim_id = 'C-3000'",
        "UPDATE decisions SET answer = 'not_covered' WHERE claim_id = 'C-2000'",
    )
    assert store.verify_audit().first_bad == 2


def test_a_row_naming_no_entry_number_is_named_or_refused(store: Store, engine: str) -> None:
    """SQLite keeps text in an INTEGER column, so verify must catch it; PostgreSQL refuses it."""
    tampering = "UPDATE decisions SET audit_seq = 'x' WHERE claim_id = 'C-2000'"
    if engine == "postgresql":
        with pytest.raises(DataError, match="invalid input syntax for type integer"):
            _tamper(store, tampering)
        assert store.verify_audit() == audit.Verdict(True, 4)  # nothing was written
        return
    _tamper(store, tampering)
    assert store.verify_audit() == audit.Verdict(
        False,
        4,
        None,
        "the decision of claim C-2000 names audit entry 'x', not an entry number",
    )

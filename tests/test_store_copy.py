"""`claims-crew store copy --to URL`: the SQLite store, chain included, into another database.

The store copied is made by the real pipeline (the scripted crew, the real resolver, real
SQLite): three claims of an inbox, one accepted and two escalated, one escalation decided by a
reviewer, so every table the chain covers has rows. It is copied into a fresh PostgreSQL
database (and, the same way, into a new SQLite file), then checked: the same rows, a chain that
verifies, new ids that do not collide, and an inbox run that finds nothing left to send a model.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rich.console import Console
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.desk import DeskRules
from claims_crew.llms.base import Messages
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from claims_crew.store.engine import DATABASE_URL_VARIABLE
from claims_crew.store.tables import metadata
from tests.support.crew import (
    FRAUD_EXCLUDED,
    KNOWN_START,
    POLICY_COVERED,
    Script,
    claim_named,
    looked_up,
    responding,
    water_claim_saying_when,
    water_intake,
)
from tests.support.openai_server import StartServer
from tests.support.paths import ROOT
from tests.support.provider import CrewScript, point_model_at, water_replies
from tests.support.store import record_for, water_loaded
from tests.support.store_rows import table_rows

SURE = {**POLICY_COVERED, "confidence": 0.9}
UNSURE = {**POLICY_COVERED, "confidence": 0.82}
CLAIMS = ("S-101", "S-102", "S-103")
OLD_STORE = ROOT / "tests" / "data" / "store-before-alembic.sqlite"


def _claim_of(messages: object) -> str:
    return claim_named(messages, CLAIMS)


def crew_script() -> Script:
    """S-101: both sides sure, accepted. S-102: both at 0.82, escalated for low confidence.
    S-103 (never says when the leak began): fraud cites 7.1 from memory, escalated."""

    def intake(m: Messages) -> str:
        return water_intake(m) if _claim_of(m) == "S-103" else final(KNOWN_START)

    def policy(m: object) -> str:
        if not looked_up(m):
            return lookup("HM-HOME-001", "4.2(b)")
        return final(UNSURE if _claim_of(m) == "S-102" else SURE)

    def fraud(m: object) -> str:
        claim = _claim_of(m)
        if claim == "S-103":
            return final(FRAUD_EXCLUDED)
        if not looked_up(m):
            return lookup("HM-HOME-001", "4.2(b)")
        return final(UNSURE if claim == "S-102" else SURE)

    return responding(intake=intake, policy=policy, fraud=fraud)


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    folder = tmp_path / "inbox"
    water_claim_saying_when(folder, "S-101")
    water_claim_saying_when(folder, "S-102")
    water_loaded(folder, "S-103")
    return folder


@pytest.fixture
def source(inbox: Path) -> Store:
    """The SQLite store in CLAIMS_CREW_HOME after a run of the inbox and one human review."""
    assert review_inbox(inbox, 1, Console(width=200), llm_for=crew_script()) == 0
    store = Store()
    assert [(d.claim_id, d.outcome) for d in store.decisions()] == [
        ("S-101", "ACCEPTED"),
        ("S-102", "ESCALATED"),
        ("S-103", "ESCALATED"),
    ]
    store.add_reviewer("ana")
    store.decide(
        "S-102", "covered", "The plumber's invoice dates the leak.", "ana", rules=DeskRules()
    )
    return store


@pytest.fixture(params=["postgresql", "sqlite"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a database to copy into: a fresh PostgreSQL database, or a new SQLite file."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return f"sqlite:///{tmp_path / 'copy' / 'claims.sqlite'}"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def copy_to(target: str) -> Result:
    result = cli("store", "copy", "--to", target)
    assert result.exit_code == 0, result.output
    return result


def test_the_copy_holds_the_same_rows_and_its_chain_verifies(
    source: Store, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert source.path is not None
    before = table_rows(source.path)
    result = copy_to(target)

    for name, rows in (("audit_log", 4), ("decisions", 3), ("escalations", 2), ("reviews", 1)):
        assert re.search(rf"│ {name} +│ +{rows} │", result.output), (name, result.output)
    assert "The copy's audit chain verifies: 4 entries" in result.output
    copied = table_rows(target)
    assert copied == before
    assert {name for name, rows in copied.items() if rows} >= {
        "claim_files",
        "attempts",
        "agent_outputs",
        "tool_calls",
        "resolutions",
        "decisions",
        "escalations",
        "reviews",
        "reviewers",
        "validations",
        "audit_log",
        "audit_head",
    }

    copy = Store(url=target)
    assert copy.verify_audit().ok and copy.verify_audit().entries == 4
    assert copy.decisions() == source.decisions()
    assert copy.reviews() == source.reviews()
    assert copy.escalation("S-103") == source.escalation("S-103")
    assert copy.export_audit()[1:] == source.export_audit()[1:]  # the header dates the export
    assert copy.claim_record("S-101") == source.claim_record("S-101")
    # `audit verify` as an operator would run it, pointed at the copy.
    monkeypatch.setenv(DATABASE_URL_VARIABLE, target)
    verified = cli("audit", "verify")
    assert verified.exit_code == 0, verified.output
    assert "ok: 4 entries, chain intact." in verified.output


def test_new_rows_on_the_copy_get_new_ids_and_extend_the_chain(
    source: Store, target: str, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    copy_to(target)
    copy = Store(url=target)

    # Each kind of generated id once: a run, an attempt with its resolution, a review.
    assert copy.start_run("after the move") == 2
    loaded = water_loaded(tmp_path / "later", "C-3000")
    recorded = copy.record(record_for(loaded, sample_library), None, loaded)
    assert recorded.decided and recorded.attempt_id == 4
    review = copy.decide(
        "S-103", "not_covered", "Seepage over weeks, as 7.1 says.", "ana", rules=DeskRules()
    )
    assert review.id == 2

    assert sorted(d.claim_id for d in copy.decisions()) == ["C-3000", "S-101", "S-102", "S-103"]
    assert [e.seq for e in copy.audit_entries("C-3000")] == [5]
    assert review.audit_seq == 6
    verdict = copy.verify_audit()
    assert verdict.ok and verdict.entries == 6
    # The original is untouched by what the copy recorded.
    assert source.verify_audit().entries == 4


def test_a_rerun_of_the_inbox_against_the_copy_calls_no_model(
    source: Store,
    target: str,
    inbox: Path,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copy_to(target)
    # A provider that would decide every claim of the inbox, were it asked.
    script = CrewScript()
    for claim_id in CLAIMS:
        water_replies(script, claim_id)
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    monkeypatch.setenv(DATABASE_URL_VARIABLE, target)

    console = Console(record=True, width=200)
    assert review_inbox(inbox, 4, console) == 0

    assert server.requests == []
    printed = console.export_text()
    assert "3 claim file(s)" in printed and "0 to review" in printed
    assert len(Store().decisions()) == 3


def test_a_target_that_is_not_empty_is_refused_and_left_untouched(
    source: Store, target: str
) -> None:
    copy_to(target)
    before = table_rows(target)

    again = cli("store", "copy", "--to", target)

    assert again.exit_code == 2, again.output
    assert "is not an empty store" in again.stderr and "nothing was written" in again.stderr
    assert "audit_log (4)" in again.stderr
    assert table_rows(target) == before


def test_a_copy_that_fails_halfway_writes_nothing(source: Store, postgres_url: str) -> None:
    """One transaction: a row PostgreSQL refuses (text where a number belongs, which SQLite
    keeps) undoes the tables copied before it, and the message names the table."""
    with source.write() as conn:
        conn.execute(text("UPDATE escalations SET version = 'two' WHERE claim_id = 'S-103'"))

    failed = cli("store", "copy", "--to", postgres_url)

    assert failed.exit_code == 2, failed.output
    assert "copying table escalations" in failed.stderr
    assert "nothing was written" in failed.stderr
    copied = table_rows(postgres_url)
    assert copied["audit_log"] == [] and copied["decisions"] == []
    assert all(rows == [] for rows in copied.values())

    # Mended, the same command copies into the same database.
    with source.write() as conn:
        conn.execute(text("UPDATE escalations SET version = 1 WHERE claim_id = 'S-103'"))
    copy_to(postgres_url)
    assert len(table_rows(postgres_url)["decisions"]) == 3


def test_an_older_store_is_refused_without_being_migrated(source: Store, tmp_path: Path) -> None:
    """A store made before the migrations moved to Alembic, with rows: not even stamped."""
    old = tmp_path / "old.sqlite"
    shutil.copyfile(OLD_STORE, old)
    digest = hashlib.sha256(old.read_bytes()).hexdigest()

    refused = cli("store", "copy", "--to", str(old))  # a file path, as well as a URL

    assert refused.exit_code == 2, refused.output
    assert "is not an empty store" in refused.stderr
    assert hashlib.sha256(old.read_bytes()).hexdigest() == digest


def test_a_database_with_other_tables_is_refused(source: Store, postgres_url: str) -> None:
    engine = create_engine(postgres_url, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE invoices (id INTEGER PRIMARY KEY)"))
    engine.dispose()

    refused = cli("store", "copy", "--to", postgres_url)

    assert refused.exit_code == 2, refused.output
    assert "holds tables that are not the store's (invoices)" in refused.stderr
    assert set(table_rows(postgres_url)) == set()  # no table of the store was made


@pytest.mark.parametrize(
    ("to", "message"),
    [
        ("mysql+pymysql://claims@db/claims", "unsupported database"),
        ("postgresql+psycopg://claims@db:port/claims", "neither a database URL nor a file path"),
    ],
)
def test_a_target_that_is_no_store_database_is_refused(
    source: Store, to: str, message: str
) -> None:
    refused = cli("store", "copy", "--to", to)
    assert refused.exit_code == 2, refused.output
    assert message in refused.stderr


def test_json_names_each_table_and_the_copys_chain(source: Store, tmp_path: Path) -> None:
    target = tmp_path / "copy.sqlite"
    result = cli("store", "copy", "--to", str(target), "--json")
    assert result.exit_code == 0, result.output
    payload: dict[str, Any] = json.loads(result.stdout)
    assert payload["from"] == str(source.path)
    assert payload["to"] == f"sqlite:///{target}"
    assert list(payload["tables"]) == [t.name for t in metadata.sorted_tables]
    assert payload["tables"]["audit_log"] == 4 and payload["tables"]["reviews"] == 1
    assert payload["audit"] == {
        "ok": True,
        "entries": 4,
        "first_bad": None,
        "problem": None,
        "unsigned": 0,  # the signatures came along, and check with the same key
    }

"""Claim records with real resolutions for the store, audit and review tests.

The resolver really runs on the water claim (the design's example) against the sample home
policy, so the clause texts, statuses and trail in the store are what a run would produce.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Connection, MetaData, create_engine, inspect, text

from claims_crew.claim_files import LoadedClaim
from claims_crew.models import Claim, ClaimFile, IntakeFacts, LedgerEntry
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.resolver import resolve
from claims_crew.resolver.config import load_config
from claims_crew.resolver.reread import read_case
from claims_crew.store import Store
from claims_crew.store.schema import alembic_config
from tests.support.chain import rewrite_unsigned
from tests.support.crew import FRAUD_EXCLUDED, INTAKE_WATER, POLICY_COVERED, WATER_CLAIM
from tests.support.paths import ROOT

START = datetime(2025, 11, 5, 9, 0, tzinfo=UTC)

# For a test in a module that runs on both engines (the `engine` fixture) that is about the
# SQLite file itself: it runs once, on SQLite.
sqlite_only = pytest.mark.parametrize("engine", ["sqlite"], indirect=True)
POLICY_AGREES = {**FRAUD_EXCLUDED, "answer": "covered", "confidence": 0.9, "evidence": []}


def water_loaded(folder: Path, claim_id: str = "C-1042", **changes: Any) -> LoadedClaim:
    """The water claim under another id (and any field changed), written to `folder`: a real
    claim, its clock counting from its date_reported, unless `sample=True` is given."""
    data = {**json.loads(WATER_CLAIM.read_text(encoding="utf-8")), "claim_id": claim_id}
    del data["sample"]
    data.update(changes)
    raw = json.dumps(data, indent=2).encode("utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{claim_id}.json"
    path.write_bytes(raw)
    return LoadedClaim(path, ClaimFile.model_validate(data), raw, {})


def record_for(
    loaded: LoadedClaim,
    library: PolicyLibrary,
    *,
    intake: dict[str, Any] | None = None,
    policy: dict[str, Any] | None = None,
    fraud: dict[str, Any] | None = None,
) -> ClaimRecord:
    """A reviewed record of the claim, resolved by the real resolver.

    By default it is the design's example, which escalates: policy looked 4.2(b) up, fraud
    cites 7.1 from memory, and nobody knows when the damage started.
    """
    facts = IntakeFacts.model_validate(intake or INTAKE_WATER)
    policy_claim = Claim.model_validate(policy or POLICY_COVERED)
    fraud_claim = Claim.model_validate(fraud or FRAUD_EXCLUDED)
    ledger = [
        LedgerEntry(
            task_id="t-policy",
            task_name="policy_task",
            agent_role="policy",
            tool="policy_lookup",
            args={"policy_id": "HM-HOME-001", "clause_id": "4.2(b)"},
            returned_clause_ids=["4.2(b)"],
        )
    ]
    config = load_config(ROOT / "config")
    answers = (policy_claim, fraud_claim)
    case = read_case(
        library, config, loaded.claim, facts, answers, ledger, loaded.attachments,
        pages=loaded.pages(),
    )  # fmt: skip
    resolution = resolve(case, config)
    return ClaimRecord(
        claim_id=loaded.claim.claim_id,
        claim_file=str(loaded.path),
        claim_sha256=loaded.sha256,
        policy_id=loaded.claim.policy_id,
        status="reviewed",
        intake=facts,
        policy=policy_claim,
        fraud=fraud_claim,
        raw={
            "intake_task": json.dumps(intake or INTAKE_WATER),
            "policy_task": json.dumps(policy or POLICY_COVERED),
            "fraud_task": json.dumps(fraud or FRAUD_EXCLUDED),
        },
        ledger=ledger,
        models={"intake": "scripted-intake", "policy": "scripted-policy", "fraud": "scripted"},
        resolution=resolution,
        model_calls={"intake_task": 1, "policy_task": 2, "fraud_task": 1},
        tokens={"intake_task": 310, "policy_task": 905, "fraud_task": 402},
        policy_sha256=case.view.sha256,
        started_at=START,
        finished_at=START,
    )


def water_escalated(folder: Path, library: PolicyLibrary, **changes: Any) -> Store:
    """The store every command opens (`Store()`), holding the water claim escalated as the
    design's example (written to `folder`, with any field changed)."""
    store = Store()
    water = water_loaded(folder, **changes)
    store.record(record_for(water, library), None, water)
    return store


def accepted_answers() -> dict[str, dict[str, Any]]:
    """Both sides answer covered from a verified 4.2(b): the resolver accepts."""
    policy = {**POLICY_COVERED, "confidence": 0.9}
    return {"policy": policy, "fraud": {**policy, "rationale": "No sign of fraud."}}


def schema_at(revision: str) -> dict[str, tuple[set[str], set[str]]]:
    """Each table a database migrated as far as `revision` has, with its columns and indexes
    (built in a scratch SQLite)."""
    scratch = create_engine("sqlite://")
    try:
        with scratch.begin() as conn:
            conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(64) PRIMARY KEY)"))
            command.upgrade(alembic_config(conn), revision)
            return _schema(conn)
    finally:
        scratch.dispose()


def _schema(conn: Connection) -> dict[str, tuple[set[str], set[str]]]:
    found = inspect(conn)
    return {
        table: (
            {c["name"] for c in found.get_columns(table)},
            {str(i["name"]) for i in found.get_indexes(table)},
        )
        for table in found.get_table_names()
    }


def back_to(store: Store, revision: str) -> None:
    """Make the store's database look last migrated at `revision`, as an older store is: its
    revision set back, and what the later revisions made dropped (their tables with their rows,
    the columns and the indexes they added; before entries were signed, the chain unsigned).
    The next store opened on it migrates it again."""
    then, now = schema_at(revision), schema_at("head")
    with store.write() as conn:
        if "signature" not in then.get("audit_log", (set(), set()))[0]:
            # Entries written then named no key: the chain as such a store has it.
            rewrite_unsigned(conn, lambda _entry: None)
        for table, (columns, indexes) in now.items():
            if table not in then:
                continue
            # Named by the migrations, so the same on both engines.
            for index in sorted(indexes - then[table][1]):
                conn.execute(text(f'DROP INDEX "{index}"'))
            for column in sorted(columns - then[table][0]):
                conn.execute(text(f'ALTER TABLE "{table}" DROP COLUMN "{column}"'))
        found = MetaData()
        found.reflect(conn)
        for dropped in reversed(found.sorted_tables):  # those that refer to others first
            if dropped.name not in then:
                dropped.drop(conn)
        conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revision})

"""Keeping claim files, and triage: whether a claim file still needs the models.

A claim file is kept whole once per version (its bytes, fields and attachments' text), so a
worker can review it without the inbox. A claim with a decision is never offered to a model
again, and a file whose bytes changed after its claim was decided is flagged in
`changed_files` and left alone: deciding it again is a person's call. A file is compared with
every version the claim was reviewed on, not only the decision's: after an appeal, the decision
stands on the appeal's rebuilt file, and the inbox file sent again is the one first decided.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy import ColumnElement, Connection, and_, exists, select, update

from claims_crew.claim_files import LoadedClaim
from claims_crew.documents.record import records_json
from claims_crew.store.metric_totals import count_claim_file
from claims_crew.store.sql import insert_new
from claims_crew.store.tables import (
    attempts,
    changed_files,
    claim_files,
    decisions,
    validations,
)

Triage = Literal["todo", "decided", "changed_after_decision"]


def keep_file(conn: Connection, loaded: LoadedClaim, now: str) -> None:
    """The claim file whole, once per version: bytes, fields and attachments' text (a row kept
    before attachments were stored gets them now), so a worker can review it without the
    inbox."""
    attachments = records_json(loaded.documents)
    key = {"claim_id": loaded.claim.claim_id, "sha256": loaded.sha256}
    row = {
        **key,
        "path": str(loaded.path),
        "policy_id": loaded.claim.policy_id,
        "fields": loaded.claim.model_dump_json(),
        "content": loaded.raw,
        "attachments": attachments,
        "seen_at": now,
    }
    if insert_new(conn, claim_files, row, ("claim_id", "sha256")):
        count_claim_file(conn, loaded.claim.claim_id)
    else:
        conn.execute(
            update(claim_files)
            .where(
                claim_files.c.claim_id == key["claim_id"],
                claim_files.c.sha256 == key["sha256"],
                claim_files.c.attachments.is_(None),
            )
            .values(attachments=attachments)
        )


def reviewed_on(
    claim_id: ColumnElement[str] | str, sha256: ColumnElement[str] | str
) -> ColumnElement[bool]:
    """Whether the claim was reviewed on that version of its file (a finished attempt): the
    versions it was decided on, before and after an appeal."""
    a = attempts.c
    return exists().where(
        and_(a.claim_id == claim_id, a.claim_sha256 == sha256, a.status == "reviewed")
    )


def triage_in(conn: Connection, loaded: LoadedClaim, now: str) -> Triage:
    """In a write transaction: keep the file, and say whether the claim still needs the
    models; a file changed after its claim's decision is flagged in changed_files."""
    claim_id, sha = loaded.claim.claim_id, loaded.sha256
    keep_file(conn, loaded, now)
    # A revalidation may have checked the decision again on a newer file.
    row = conn.execute(
        select(decisions.c.claim_sha256, validations.c.claim_sha256)
        .select_from(
            decisions.outerjoin(validations, validations.c.claim_id == decisions.c.claim_id)
        )
        .where(decisions.c.claim_id == claim_id)
    ).first()
    if row is None:
        return "todo"
    if sha in (row[0], row[1]) or conn.execute(select(reviewed_on(claim_id, sha))).scalar():
        return "decided"
    insert_new(
        conn,
        changed_files,
        {
            "claim_id": claim_id,
            "decided_sha256": row[0],
            "sha256": sha,
            "path": str(loaded.path),
            "seen_at": now,
        },
        ("claim_id", "sha256"),
    )
    return "changed_after_decision"

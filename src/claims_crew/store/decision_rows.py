"""Writing a decision: its row, its escalation if a person must decide, its audit entry, and what
it stands on (the `validations` row).

A first review (recording.py) and a revalidation (revalidation.py) both decide this way, inside
their own write transaction, after the attempt is written (attempt_rows.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, insert, select

from claims_crew.claim_files import LoadedClaim
from claims_crew.models import ClaimFile
from claims_crew.records import ClaimRecord, Deadlines
from claims_crew.records.resolution import Resolution
from claims_crew.store import audit
from claims_crew.store.audit_key import AuditKey
from claims_crew.store.desk_rows import Assign, assigned, candidates
from claims_crew.store.metric_totals import count_decision
from claims_crew.store.report_facts import add_fact, claim_row
from claims_crew.store.report_query import decided_of
from claims_crew.store.sql import upsert
from claims_crew.store.tables import claim_files, decisions, escalations, validations
from claims_crew.vocabulary import OPEN_OUTCOMES, parse_stamp, stamp


@dataclass(frozen=True)
class Recorded:
    """What `record` wrote: the attempt, and the decision and audit entry if there was one."""

    attempt_id: int
    decided: bool
    outcome: str | None = None
    escalation_id: int | None = None
    audit_seq: int | None = None


@dataclass(frozen=True)
class Basis:
    """What a decision stands on beyond its record: the config files' hash (config_hash.py), and
    how long it stands (resolution.yaml `expiry`; None: for ever). Should it escalate: the
    desk's deadlines (clocks.yaml), who may not decide it (an appeal's earlier reviewer), and
    who it goes to: the policy's line of business, and config/desk.yaml's rule
    (desk.assignment.Assigner), applied to the reviewers as they stand when it is recorded;
    without a rule it is left unassigned."""

    config_sha256: str | None = None
    valid_for: timedelta | None = None
    deadlines: Deadlines | None = None
    excluded_reviewers: tuple[str, ...] = ()
    line: str | None = None
    assign: Assign | None = None


def decision_fields(record: ClaimRecord, resolution: Resolution) -> dict[str, Any]:
    """What every decision's audit entry says of the claim, the versions it stood on and the
    outcome: the same for a first decision and for one revalidated."""
    return {
        "claim_id": record.claim_id,
        "claim_sha256": record.claim_sha256,
        "policy_sha256": record.policy_sha256,
        "policy_corrections_sha256": record.policy_corrections_sha256,
        "config_sha256": resolution.config_sha256 or None,
        "models": record.models,
        "outcome": resolution.outcome,
        "answer": resolution.answer,
        "rule": resolution.rule,
        "reason_codes": list(resolution.reason_codes),
    }


def cited_clauses(resolution: Resolution) -> list[str]:
    """The clauses both sides cited, each once, in the order first cited."""
    return list(
        dict.fromkeys(
            c.clause_id or c.cited for side in resolution.sides.values() for c in side.clauses
        )
    )


def expires_at(now: str, basis: Basis) -> str | None:
    """When a decision validated at `now` stops standing (None: never)."""
    if basis.valid_for is None:
        return None
    return stamp(parse_stamp(now) + basis.valid_for)


def decide(
    conn: Connection,
    key: AuditKey,
    now: str,
    record: ClaimRecord,
    resolution: Resolution,
    attempt_id: int,
    resolution_id: int,
    loaded: LoadedClaim | None,
    basis: Basis,
    links: dict[str, Any] | None = None,
) -> Recorded:
    """In a write transaction: the decision, its escalation if a person must decide, its audit
    entry (with any revalidation `links`, signed with `key`), and what it stands on
    (validations)."""
    until = expires_at(now, basis)
    waits = resolution.outcome in OPEN_OUTCOMES
    by_adjudicator = resolution.rule == "adjudicator"
    kind: audit.EntryKind = "escalated" if waits else "adjudicated" if by_adjudicator else "auto"
    actor = "adjudicator" if by_adjudicator else "auto"
    if by_adjudicator and record.adjudication is not None and not waits:
        evidence = list(dict.fromkeys(record.adjudication.evidence))
    else:
        evidence = cited_clauses(resolution)
    # A person's claim goes to a reviewer by the desk's rule, named in its escalated entry;
    # never to one who may not decide it (an appeal's earlier reviewer).
    chosen = why_nobody = None
    if waits and basis.assign is not None:
        found = candidates(conn)
        chosen, _ = basis.assign(found, basis.line, basis.excluded_reviewers)
        if chosen is None:  # why, decided here where the rule ran, is what the queue shows
            why_nobody = basis.assign.unassigned(found, basis.line, basis.excluded_reviewers)
    entry, _ = audit.append(
        conn,
        key,
        kind=kind,
        reviewer=chosen,
        **decision_fields(record, resolution),
        evidence=evidence,
        actor=actor,
        reason=resolution.reason,
        overrides=None,
        overrides_hash=None,
        at=now,
        config_files_sha256=basis.config_sha256,
        expires_at=until,
        **(links or {}),
    )
    conn.execute(
        insert(decisions).values(
            claim_id=record.claim_id,
            claim_sha256=record.claim_sha256,
            attempt_id=attempt_id,
            resolution_id=resolution_id,
            outcome=resolution.outcome,
            answer=resolution.answer,
            decided_by=actor,
            decided_at=now,
            audit_seq=entry.seq,
        )
    )
    count_decision(conn, record.claim_id)
    escalation_id = None
    fields = _decided_fields(conn, record, loaded)
    if waits:
        claim = loaded.claim if loaded is not None else _parsed(fields)
        escalation_id = _escalate(
            conn, now, record, resolution, resolution_id, claim, entry.seq, basis
        )
        where = (escalation_id, record.claim_id, entry.seq)
        assigned(conn, now, where, basis.line, chosen, why_nobody)
    # The report's fact, with its escalation, from the record rather than a read of the rows
    # just written: nothing else in force is the claim's (no decision stood before this one,
    # or revalidation.py superseded it with its review and escalation).
    add_fact(conn, claim_row(decided_of(record, resolution, now, escalation_id, fields)))
    validated(conn, record, attempt_id, entry.seq, now, until, basis)
    return Recorded(attempt_id, True, resolution.outcome, escalation_id, entry.seq)


def _escalate(
    conn: Connection,
    now: str,
    record: ClaimRecord,
    resolution: Resolution,
    resolution_id: int,
    claim: ClaimFile | None,
    seq: int,
    basis: Basis,
) -> int:
    """The escalation that puts the claim in a person's queue, on its clock; returns its id."""
    clock = basis.deadlines
    excluded = list(basis.excluded_reviewers)
    return int(
        conn.execute(
            insert(escalations)
            .values(
                claim_id=record.claim_id,
                resolution_id=resolution_id,
                amount=str(claim.amount) if claim else None,
                currency=claim.currency if claim else None,
                reason_codes=json.dumps(resolution.reason_codes),
                question=resolution.question,
                opened_at=now,
                audit_seq=seq,
                jurisdiction=clock.jurisdiction if clock else None,
                acknowledge_by=clock.acknowledge_by if clock else None,
                decide_by=clock.decide_by if clock else None,
                excluded_reviewers=json.dumps(excluded) if excluded else None,
            )
            .returning(escalations.c.id)
        ).scalar_one()
    )


def validated(
    conn: Connection,
    record: ClaimRecord,
    attempt_id: int,
    seq: int,
    now: str,
    until: str | None,
    basis: Basis,
) -> None:
    """What the claim's decision now stands on, and until when (one row per claim)."""
    upsert(
        conn,
        validations,
        {
            "claim_id": record.claim_id,
            "audit_seq": seq,
            "attempt_id": attempt_id,
            "claim_sha256": record.claim_sha256,
            "validated_at": now,
            "expires_at": until,
            "policy_sha256": record.policy_sha256,
            "policy_corrections_sha256": record.policy_corrections_sha256,
            "config_sha256": basis.config_sha256,
            "models": json.dumps(record.models),
        },
        ("claim_id",),
    )


def _parsed(fields: str | None) -> ClaimFile | None:
    return ClaimFile.model_validate_json(fields) if fields else None


def _decided_fields(
    conn: Connection, record: ClaimRecord, loaded: LoadedClaim | None
) -> str | None:
    """The stored fields (JSON) of the claim file version the record decided, if kept: from
    the file in hand, else read (one row by its key)."""
    if loaded is not None and loaded.sha256 == record.claim_sha256:
        return loaded.claim.model_dump_json()
    fields: str | None = conn.execute(
        select(claim_files.c.fields).where(
            claim_files.c.claim_id == record.claim_id,
            claim_files.c.sha256 == record.claim_sha256,
        )
    ).scalar()
    return fields

"""The queries audit_rows.py checks: each decision, escalation and review row with the audit
entry it names and the rows it rests on, in entry order (read there as mappings, by label).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, select

from claims_crew.store.tables import audit_log, decisions, escalations, resolutions, reviews

_d, _a, _r = decisions.alias("d"), audit_log.alias("a"), resolutions.alias("r")
DECISIONS = (
    select(
        _d.c.audit_seq.label("seq"),
        _a.c.body.label("entry"),
        _d.c.claim_id,
        _d.c.claim_sha256,
        _d.c.outcome,
        _d.c.answer,
        _d.c.decided_by,
        _d.c.decided_at,
        _d.c.attempt_id,
        _r.c.id.label("resolution_id"),
        _r.c.attempt_id.label("r_attempt_id"),
        _r.c.claim_id.label("r_claim_id"),
        _r.c.outcome.label("r_outcome"),
        _r.c.rule.label("r_rule"),
        _r.c.answer.label("r_answer"),
        _r.c.reason_codes.label("r_reason_codes"),
        _r.c.body.label("r_body"),
    )
    .select_from(
        _d.outerjoin(_a, _a.c.seq == _d.c.audit_seq).outerjoin(_r, _r.c.id == _d.c.resolution_id)
    )
    .order_by(_d.c.audit_seq, _d.c.claim_id)
)

_e, _v = escalations.alias("e"), reviews.alias("v")
ESCALATIONS = (
    select(
        _e.c.audit_seq.label("seq"),
        _a.c.body.label("entry"),
        _e.c.claim_id,
        _e.c.reason_codes,
        _e.c.question,
        _e.c.opened_at,
        _e.c.resolution_id,
        _e.c.state,
        _e.c.decided_by,
        _e.c.decided_at,
        _e.c.decision,
        _d.c.audit_seq.label("d_seq"),
        _d.c.resolution_id.label("d_resolution_id"),
        _r.c.question.label("r_question"),
        _v.c.id.label("review_id"),
        _v.c.reviewer.label("v_reviewer"),
        _v.c.decision.label("v_decision"),
        _v.c.decided_at.label("v_decided_at"),
        _v.c.audit_seq.label("v_seq"),
    )
    .select_from(
        _e.outerjoin(_a, _a.c.seq == _e.c.audit_seq)
        .outerjoin(_d, _d.c.claim_id == _e.c.claim_id)
        .outerjoin(_r, _r.c.id == _e.c.resolution_id)
        .outerjoin(_v, _v.c.escalation_id == _e.c.id)
    )
    .order_by(_e.c.audit_seq, _e.c.id)
)

_o = audit_log.alias("o")  # the escalation's entry, which a review overrides
REVIEWS = (
    select(
        _v.c.audit_seq.label("seq"),
        _a.c.body.label("entry"),
        _v.c.claim_id,
        _v.c.reviewer,
        _v.c.decision,
        _v.c.reason,
        _v.c.decided_at,
        _v.c.clauses,
        _e.c.id.label("escalation_id"),
        _e.c.claim_id.label("e_claim_id"),
        _e.c.audit_seq.label("e_seq"),
        _o.c.hash.label("e_hash"),
    )
    .select_from(
        _v.outerjoin(_a, _a.c.seq == _v.c.audit_seq)
        .outerjoin(_e, _e.c.id == _v.c.escalation_id)
        .outerjoin(_o, _o.c.seq == _e.c.audit_seq)
    )
    .order_by(_v.c.audit_seq, _v.c.id)
)

# The rows that name an entry, in the order the first odd one is reported.
NAMING: tuple[tuple[str, Table, Any], ...] = (
    ("decision", decisions, decisions.c.claim_id),
    ("escalation", escalations, escalations.c.id),
    ("review", reviews, reviews.c.id),
)

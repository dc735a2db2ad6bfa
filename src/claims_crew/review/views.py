"""What a reviewer sees of the queue and of one escalation, as plain data.

The terminal, the `--json` output and the web page all render these dictionaries, so the three
show the same thing: both claims side by side, each cited clause as the code re-read it, the
facts each side relied on and whether the claim bears each fact out, the resolver's trail and
the one question to answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from claims_crew import settings
from claims_crew.deciding.clauses import offered_clauses
from claims_crew.desk import clocks
from claims_crew.documents.record import unread_parts
from claims_crew.errors import ClaimsCrewError
from claims_crew.letters.issue import letter_preview
from claims_crew.letters.render import LETTERS_DIR
from claims_crew.models import Claim, IntakeFacts, ParseFailure
from claims_crew.records import PersonClause
from claims_crew.resolver import Resolution, SideReview
from claims_crew.resolver.external_codes import ExternalCodes, load_external_codes
from claims_crew.review.amounts import external_detail, payable_detail
from claims_crew.review.desk_views import desk_cell, desk_detail, with_desk
from claims_crew.vocabulary import FACT_FIELDS, SIDES, parse_stamp

if TYPE_CHECKING:
    # The store is passed in: `claims-crew review --help` reads MAX_PAGE from here without
    # loading SQLAlchemy.
    from claims_crew.store import Escalation, Review, Store
    from claims_crew.store.entry_kinds import AuditEntry

__all__ = ["desk_cell"]

PAGE_SIZE = 50
# The last page number asked for that is answered: far past any queue (five million open
# escalations), and small enough that the row offset stays an ordinary integer on either
# engine. A larger number is refused (400 on the page, a usage error in the CLI).
MAX_PAGE = 100_000

STATUS_LABELS = {
    "verified": "verified",
    "quote_mismatch": "misquoted",
    "clause_not_found": "not found",
    "superseded": "superseded wording",
}


def age(opened_at: str, now: datetime) -> str:
    """How long an escalation has waited, in the largest whole unit."""
    seconds = max(0, int((now - parse_stamp(opened_at)).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _clock(e: Escalation, on: date) -> dict[str, Any]:
    """An escalation's deadlines, and how near or late the decision is on day `on` (an
    escalation decided has its clock stopped: no "due")."""
    left = clocks.days_left(e.decide_by, on) if e.state == "open" else None
    return {
        "jurisdiction": e.jurisdiction,
        "acknowledge_by": e.acknowledge_by,
        "decide_by": e.decide_by,
        "days_left": left,
        "overdue": left is not None and left < 0,
        "due": clocks.due_text(left) if e.state == "open" else None,
        "excluded_reviewers": list(e.excluded_reviewers),
    }


def _row(e: Escalation, on: date, codes: ExternalCodes | None) -> dict[str, Any]:
    return {
        "id": e.id,
        "claim_id": e.claim_id,
        "amount": e.amount,
        "currency": e.currency,
        "reason_codes": e.reason_codes,
        # Each reason code's code in config/reason_codes.yaml; empty without the file.
        "external_codes": {c: codes.reason_codes.get(c) for c in e.reason_codes} if codes else {},
        "question": e.question,
        "opened_at": e.opened_at,
        **_clock(e, on),
    }


def escalation_list(
    store: Store,
    page: int = 1,
    page_size: int = PAGE_SIZE,
    overdue: bool = False,
    assigned_to: str | None = None,
) -> dict[str, Any]:
    """The open escalations (assigned to `assigned_to`, if named), nearest deadline first, one
    page at a time, each with who has it (with `overdue`, only those past their deadline to
    decide, as of clocks.today()); and files changed after their decision, which a person must
    look at too."""
    page = min(max(1, page), MAX_PAGE)
    on = clocks.today()
    before = on.isoformat() if overdue else None
    total = store.open_count(assigned_to, before)
    rows = store.open_escalations(page_size, (page - 1) * page_size, assigned_to, before)
    codes = load_external_codes()
    # Each row's state word as every view says it (escalated, appealed, under review): one read.
    stands = {
        s.claim_id: s.standing
        for s in store.claim_states(claim_ids=[e.claim_id for e in rows], limit=len(rows))
    }
    return {
        "escalations": with_desk(
            store,
            [{**_row(e, on, codes), "standing": stands.get(e.claim_id)} for e in rows],
        ),
        "overdue_only": overdue,
        "mine": assigned_to,
        "today": on.isoformat(),
        "total": total,
        "page": page,
        "pages": max(1, -(-total // page_size)),
        "changed_after_decision": [
            {
                "claim_id": c.claim_id,
                "decided_sha256": c.decided_sha256,
                "sha256": c.sha256,
                "path": c.path,
                "seen_at": c.seen_at,
            }
            for c in store.changed_after_decision()
        ],
    }


def _fact_values(facts: IntakeFacts | ParseFailure | None) -> dict[str, Any]:
    if not isinstance(facts, IntakeFacts):
        return {}
    return facts.model_dump(mode="json", exclude={"unknowns", "sources"})


def fact_checks(
    facts: IntakeFacts | ParseFailure | None, resolution: Resolution | None
) -> list[dict[str, Any]]:
    """Each intake fact: verified (with its quote and where it came from), unverified (with what
    intake claimed and why it was not trusted), or unknown."""
    if resolution is not None and resolution.facts:
        # `cited` names the page of a PDF or image and its OCR confidence: "report.pdf, page 2".
        return [
            {**c.model_dump(mode="json"), "cited": c.cited(), "low_confidence": c.low_confidence}
            for c in resolution.facts
        ]
    if not isinstance(facts, IntakeFacts):
        return []
    # A record resolved before facts were checked: a stated fact was never borne out.
    return [
        {
            "name": name,
            "status": "unknown" if value is None else "unverified",
            "value": None if value is None else str(value),
            "where": None,
            "cited": "",
            "low_confidence": False,
            "quote": "",
            "problem": None if value is None else "not checked when it was decided",
        }
        for name in FACT_FIELDS
        for value in [getattr(facts, name)]
    ]


def _side(
    name: str,
    review: SideReview | None,
    claim: Claim | ParseFailure | None,
    facts: dict[str, Any],
) -> dict[str, Any]:
    out: dict[str, Any] = {"side": name}
    if isinstance(claim, ParseFailure) or claim is None:
        out.update(
            parsed=False,
            answer=None,
            confidence=None,
            problem=claim.reason if claim else "no answer",
            raw=claim.raw if claim else "",
            clauses=[],
            facts_relied_on=[],
            rationale="",
            red_flags=[],
            holds=False,
            source_checked=False,
            reason_codes=["parse_error"],
            abstain_reason=None,
        )
        return out
    relied = review.facts_relied_on if review else claim.facts_relied_on
    out.update(
        parsed=True,
        answer=claim.answer,
        confidence=claim.confidence,
        holds=review.holds if review else None,
        source_checked=review.source_checked if review else claim.source_checked,
        reason_codes=list(review.reason_codes) if review else [],
        rationale=claim.rationale,
        red_flags=list(claim.red_flags),
        # An agent that said it cannot tell, and why: shown instead of whether its evidence holds.
        abstain_reason=claim.abstain_reason,
        facts_relied_on=[{"name": f, "value": facts.get(f)} for f in relied],
        clauses=[
            {**c.model_dump(mode="json"), "status_label": STATUS_LABELS[c.status]}
            for c in (review.clauses if review else [])
        ],
    )
    if review is None:  # the resolver stopped before the re-read; show what was cited
        out["clauses"] = [
            {
                "cited": e.clause_id,
                "clause_id": None,
                "title": None,
                "kind": None,
                "status": None,
                "status_label": "not re-read",
                "supports_answer": None,
                "tool_sourced": None,
                "quote": e.quote,
                "text": None,
                "amended_by": None,
                "original": None,
            }
            for e in claim.evidence
        ]
    return out


def _targeted(resolution: Resolution | None) -> dict[str, Any] | None:
    """The one question intake was asked about the conflict's open facts, with each answer as
    the code checked it and what the resolution was before it; None when none was asked."""
    if resolution is None or resolution.targeted is None:
        return None
    asked = resolution.targeted
    return {
        **asked.model_dump(mode="json", exclude={"before"}),
        "before": {"outcome": asked.before.outcome, "rule": asked.before.rule},
    }


def _last_review(store: Store, escalation: Escalation) -> Review | None:
    if escalation.state != "decided":
        return None
    return next(reversed(store.reviews(escalation.claim_id)), None)


def unread_detail(store: Store, claim_id: str, sha256: str | None) -> list[dict[str, Any]]:
    """The parts the claim file's attachments could not read, as their stored records name
    them, each with the line every view shows ('Not read: part-1.bin, image/gif, 3 KB: …')."""
    records = (store.kept_records(claim_id, sha256) or {}) if sha256 else {}
    return [{**p.model_dump(mode="json"), "line": p.line()} for p in unread_parts(records)]


def _standing(store: Store, escalation: Escalation, audit: Sequence[AuditEntry]) -> str:
    """The claim's one phrase (store/claim_states.where_it_stands), as `claim show` and the API
    say it: a person's decision, by name and time, where one closed the escalation."""
    from claims_crew.store.claim_states import where_it_stands  # SQLAlchemy: see above

    status = store.claim_state(escalation.claim_id)
    state = status.state if status is not None else "escalated"
    person = escalation.decided_by if escalation.state == "decided" else None
    appealed = state == "escalated" and any(e.appeal is not None for e in audit)
    return where_it_stands(
        state, f"human:{person}" if person else None, escalation.decided_at, appealed
    )


def escalation_detail(store: Store, ref: str) -> dict[str, Any]:
    """One escalation with everything needed to decide it on one screen."""
    # Here: it brings Pillow, which `review list` has no need of.
    from claims_crew.review.page_image import with_originals

    escalation = store.escalation(ref)
    record = store.claim_record(escalation.claim_id)
    claim_file = store.claim_file(escalation.claim_id)
    resolution = record.resolution if record else None
    facts = _fact_values(record.intake if record else None)
    sides = {
        side: _side(
            side,
            resolution.sides.get(side) if resolution else None,
            getattr(record, side) if record else None,
            facts,
        )
        for side in SIDES
    }
    intake = record.intake if record else None
    audit = store.audit_entries(escalation.claim_id)
    return {
        "id": escalation.id,
        # Where the claim stands (the headline); the automatic outcome below is its history.
        "standing": _standing(store, escalation, audit),
        "claim_id": escalation.claim_id,
        "state": escalation.state,
        "version": escalation.version,
        "decided_by": escalation.decided_by,
        "decided_at": escalation.decided_at,
        "decision": escalation.decision,
        "opened_at": escalation.opened_at,
        "amount": escalation.amount,
        "currency": escalation.currency,
        "question": escalation.question,
        "reason_codes": escalation.reason_codes,
        **_clock(escalation, clocks.today()),
        "claim": claim_file.model_dump(mode="json") if claim_file else None,
        # Attachments a quote's page can be shown from (_page_image.html).
        "page_images": with_originals(
            store, escalation.claim_id, record.claim_sha256 if record else None
        ),
        # Every part of an attachment intake could not read, decoration too, each with its line.
        "unread": unread_detail(
            store, escalation.claim_id, record.claim_sha256 if record else None
        ),
        "facts": facts,
        "fact_checks": fact_checks(intake, resolution),
        "unknown_facts": list(intake.unknowns) if isinstance(intake, IntakeFacts) else [],
        "intake_problem": intake.reason if isinstance(intake, ParseFailure) else None,
        "outcome": resolution.outcome if resolution else None,
        "rule": resolution.rule if resolution else None,
        "reason": resolution.reason if resolution else None,
        "missing_facts": list(resolution.missing_facts) if resolution else [],
        "would_have_been": resolution.would_have_been if resolution else None,
        "would_have_won": resolution.would_have_won if resolution else None,
        "gates_tripped": list(resolution.gates_tripped) if resolution else [],
        "targeted": _targeted(resolution),
        "payable": payable_detail(resolution, _last_review(store, escalation)),
        "external": external_detail(resolution),
        "sides": sides,
        "trail": [s.model_dump(mode="json") for s in resolution.trail] if resolution else [],
        "models": record.models if record else {},
        # Task → prompt and completion tokens and calls; stage → seconds it took.
        "tokens_by_task": {t: u.model_dump() for t, u in record.tokens_by_task.items()}
        if record
        else {},
        "stage_seconds": {s: t.seconds for s, t in record.stages.items()} if record else {},
        "audit": [
            e.model_dump(mode="json", include={"seq", "kind", "actor", "answer", "reason", "at"})
            for e in audit
        ],
        # Once a person has decided: the letter the claimant would get (letters/issue.py).
        "letter": letter_preview(store, escalation.claim_id, settings.config_dir() / LETTERS_DIR)
        if escalation.state == "decided"
        else None,
        **desk_detail(store, escalation.claim_id),
        **clause_detail(store, escalation),
    }


def clause_detail(store: Store, escalation: Escalation) -> dict[str, Any]:
    """For `review show` and the page: `clauses_offered`, what an open escalation may be
    decided on (verified first; none where the policy cannot be read, which the page says
    elsewhere), and `clauses_named`, those the decision or the proposal waiting rests on."""
    offered: list[PersonClause] = []
    named: Sequence[PersonClause] = ()
    if escalation.state == "open":
        try:
            offered = offered_clauses(store, escalation.claim_id)
        except ClaimsCrewError:
            offered = []
        waiting = store.proposal(escalation.claim_id)
        named = waiting.clauses if waiting is not None else ()
    else:
        # This escalation's own review: an appealed claim has an earlier one too.
        mine = [r for r in store.reviews(escalation.claim_id) if r.escalation_id == escalation.id]
        named = mine[-1].clauses if mine else ()
    return {
        "clauses_offered": [c.model_dump(mode="json") for c in offered],
        "clauses_named": [c.model_dump(mode="json") for c in named],
    }

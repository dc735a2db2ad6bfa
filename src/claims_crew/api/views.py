"""What the API answers about a claim, as pydantic models (so the OpenAPI document describes
them), built from the store's reads: the claim's state (store/claim_states.py), its decision in
force as a letter reads it (Store.decision_on_file), the amount payable as its letter states
it (letters/content.stated_amount), and the team's codes (config/reason_codes.yaml)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from claims_crew.documents.record import unread_parts
from claims_crew.letters.content import LetterAmount, NoLetter, stated_amount
from claims_crew.resolver.external_codes import ExternalCodes
from claims_crew.store import ClaimStatus, Store
from claims_crew.store.letters import DecisionOnFile
from claims_crew.vocabulary import ClaimFileProblem, ClaimState


class ClaimLinks(BaseModel):
    self: str = Field(description="This claim in the API.")
    letter: str | None = Field(None, description="Its decision letter, once decided.")
    escalation: str | None = Field(
        None, description="Its page on the review site, where a person decides it."
    )


class ExternalCodesView(BaseModel):
    """The decision in the team's own codes (config/reason_codes.yaml); null where unmapped."""

    answer: str | None = None
    decision: str | None = Field(None, description="The code of what the rules decided.")
    reasons: list[str] = Field(default_factory=list)


class DecisionView(BaseModel):
    outcome: str = Field(description="ACCEPTED, PREFERRED, ADJUDICATED, ESCALATED, ...")
    answer: str | None = Field(description="covered, not_covered, ...; a person's, if one decided")
    rule: str | None = Field(description="The resolver rule that decided it.")
    reason_codes: list[str]
    external_codes: ExternalCodesView
    decided_by: str = Field(description="auto, adjudicator, or human:<reviewer>.")
    decided_at: str


class AuditRef(BaseModel):
    seq: int = Field(description="The audit entry of the decision in force.")
    hash: str | None = Field(description="Its SHA-256 in the hash-chained audit trail.")


class LaterDocumentView(BaseModel):
    name: str
    sha256: str
    received_at: str


class UnreadPartView(BaseModel):
    """A part inside one of the claim's attachments that could not be read (decoration too)."""

    name: str = Field(description="Where it sits: 'message.eml/part-1.bin', 'form.pdf/xfa'.")
    content_type: str = Field(description="Its declared type, e.g. image/gif.")
    size: int = Field(description="Its bytes, decoded.")
    code: ClaimFileProblem = Field(description="Why it was not read: unsupported_type, ...")
    reason: str = Field(description="Why, for a person; may be empty.")
    decoration: bool = Field(
        description="An inline image the body shows, or a small image: listed, but no reason "
        "to hold a decision back (every other part escalates the claim: unread_part)."
    )


class ClaimView(BaseModel):
    """A claim as the API shows it."""

    claim_id: str
    state: ClaimState
    standing: str = Field(
        description="Where it stands, in words: queued, under review, escalated, appealed, "
        "decided by the rules, by the adjudicator or by a person (who, when), failed."
    )
    reason: str | None = Field(None, description="Why it failed (state failed).")
    submitted_at: str
    sha256: str = Field(description="SHA-256 of the claim file version the store acts on.")
    decision: DecisionView | None = None
    amount: LetterAmount | None = Field(
        None, description="The amount payable with its steps, or why there is none."
    )
    audit: AuditRef | None = None
    later_documents: list[LaterDocumentView] = Field(default_factory=list)
    unread: list[UnreadPartView] = Field(
        default_factory=list,
        description="The parts of its attachments that could not be read, in their order.",
    )
    links: ClaimLinks


class ClaimSummary(BaseModel):
    claim_id: str
    state: ClaimState
    standing: str = Field(description="Where it stands, in words, as the claim's view says it.")
    reason: str | None = None
    submitted_at: str
    links: ClaimLinks


class ClaimPage(BaseModel):
    claims: list[ClaimSummary]
    next: str | None = Field(description="The next page's URL; null on the last page.")


def links(prefix: str, status: ClaimStatus) -> ClaimLinks:
    claim = f"{prefix}/claims/{status.claim_id}"
    return ClaimLinks(
        self=claim,
        letter=f"{claim}/letter" if status.state == "decided" else None,
        escalation=f"/escalations/{status.claim_id}"
        if status.state in ("escalated", "decided")
        else None,
    )


def summary(prefix: str, status: ClaimStatus) -> ClaimSummary:
    return ClaimSummary(
        claim_id=status.claim_id,
        state=status.state,
        standing=status.standing,
        reason=status.reason,
        submitted_at=status.submitted_at,
        links=links(prefix, status),
    )


def decided_answer(on_file: DecisionOnFile) -> str | None:
    """A person's decision where one closed the escalation, else the rules'."""
    return on_file.review.decision if on_file.review is not None else on_file.answer


def _decision(on_file: DecisionOnFile, codes: ExternalCodes | None) -> DecisionView:
    resolution = on_file.resolution
    answer = decided_answer(on_file)
    return DecisionView(
        outcome=on_file.outcome,
        answer=answer,
        rule=resolution.rule,
        reason_codes=list(resolution.reason_codes),
        external_codes=ExternalCodesView(
            answer=codes.for_answer(answer) if codes else None,
            decision=codes.of_resolution(resolution) if codes else None,
            reasons=codes.for_reasons(resolution.reason_codes) if codes else [],
        ),
        decided_by=f"human:{on_file.review.reviewer}" if on_file.review else on_file.decided_by,
        decided_at=on_file.review.decided_at if on_file.review else on_file.decided_at,
    )


def _amount(on_file: DecisionOnFile) -> LetterAmount | None:
    """The amount payable as the claim's letter states it; None while there is no letter to
    state it (no decided answer yet, or an amount beyond what a letter states)."""
    try:
        return stated_amount(on_file)
    except NoLetter:
        return None


def claim_view(
    store: Store, prefix: str, status: ClaimStatus, codes: ExternalCodes | None
) -> ClaimView:
    on_file = store.decision_on_file(status.claim_id)
    audit = None
    if on_file is not None:
        audit = AuditRef(seq=on_file.entry_seq, hash=store.entry_hash_of(on_file.entry_seq))
    decision = _decision(on_file, codes) if on_file is not None else None
    return ClaimView(
        claim_id=status.claim_id,
        state=status.state,
        standing=status.standing,
        reason=status.reason,
        submitted_at=status.submitted_at,
        sha256=status.sha256,
        decision=decision,
        amount=_amount(on_file) if on_file is not None else None,
        audit=audit,
        later_documents=[
            LaterDocumentView(name=d.name, sha256=d.sha256, received_at=d.received_at)
            for d in store.later_documents(status.claim_id)
        ],
        unread=[
            UnreadPartView.model_validate(part.model_dump())
            for part in unread_parts(store.kept_records(status.claim_id, status.sha256) or {})
        ],
        links=links(prefix, status),
    )

"""What a decision letter says, built from the stored decision alone: the `Letter` the templates
render.

Nothing here asks a model or the policy PDF again. Each deciding clause is the text the code
re-read from the PDF when the claim was decided (ClauseCheck.text, with its pages; for a
person's decision, the clauses they named, re-read when they named them), never the words an
agent or a person typed: the wording in force, cited "as amended by endorsement …" where an
endorsement changed it; the facts are those whose source the code checked (FactCheck
`verified`); who decided comes from the decision row and the review that closed its escalation.
A claim still waiting for a person, or never decided, has no letter: `NoLetter` says why.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from claims_crew.errors import ClaimsCrewError
from claims_crew.letters.wording import (
    AmountInWords,
    LetterStyle,
    in_words,
    long_date,
    plain_value,
    whole_title,
)
from claims_crew.models import Payable
from claims_crew.resolver import Resolution
from claims_crew.resolver.deciding import deciding_checks, sides_answering
from claims_crew.resolver.external_codes import ExternalCodes
from claims_crew.settings.command import command
from claims_crew.vocabulary import DECIDED_OUTCOMES, OPEN_OUTCOMES, PAID_ANSWER

if TYPE_CHECKING:
    from claims_crew.models import ClaimFile
    from claims_crew.store.letters import DecisionOnFile


class NoLetter(ClaimsCrewError):
    """The claim has no decision a letter could state; the message says why."""


class UnknownClaim(NoLetter):
    """No claim of that id is in the store at all."""


# An amount a letter states is plain digits, never exponent notation (`1E+999999`). No sum of
# money has more digits than this before the point, and written out in full such a figure
# would be a letter of its own: a decision that holds one gets no letter until a person looks.
MAX_AMOUNT_DIGITS = 15
CENT = Decimal("0.01")


def plain_amount(value: Decimal) -> str:
    """`value` as plain decimal digits, with at most two places (rounded half up to the cent);
    ValueError for NaN, an infinity, or more than MAX_AMOUNT_DIGITS digits before the point."""
    if not value.is_finite():
        raise ValueError(f"an amount of {value} is not a number a letter can state")
    if value.adjusted() >= MAX_AMOUNT_DIGITS:
        raise ValueError(
            f"an amount of {value.adjusted() + 1:,} digits is more than a letter states "
            f"(at most {MAX_AMOUNT_DIGITS} before the point); a person must look at the claim"
        )
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        value = value.quantize(CENT, rounding=ROUND_HALF_UP)
    return format(value, "f")


def plain_figure(text: str | None) -> str:
    """A fact's amount as intake gave it (`4200.0`, `1e+20`), in plain digits; the text as it
    was where it is not a number, and a plain phrase where it is beyond what a letter states."""
    if not text:
        return ""
    try:
        return plain_amount(Decimal(text))
    except InvalidOperation:
        return text
    except ValueError:
        return "a figure beyond what this letter states"


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LetterClause(_Part):
    clause_id: str
    title: str
    kind: str
    pages: list[int]
    text: str  # the words in force: an endorsement's where one changed the clause
    # "as amended by endorsement HM-E-07 (page 1)" where an endorsement in force changed it.
    amended_by: str | None = None

    @field_validator("title")
    @classmethod
    def _whole(cls, title: str) -> str:
        return whole_title(title)


class LetterFact(_Part):
    name: str
    label: str
    value: str
    where: str
    quote: str


class AmountStep(_Part):
    kind: str
    clause_id: str | None
    before: str
    after: str
    note: str


class LetterAmount(_Part):
    """The amount payable, or why there is none (`amount` None, `reason` says why)."""

    claimed: str
    currency: str
    amount: str | None
    reason: str
    steps: list[AmountStep]


class DecidedBy(_Part):
    kind: Literal["rules", "adjudicator", "reviewer"]
    rule: str
    at: str
    summary: str
    model: str | None = None
    reviewer: str | None = None
    reviewer_reason: str | None = None


class Letter(_Part):
    claim_id: str
    claimant: str
    policy_id: str
    # The policyholder's policy as issued, when the claim names it (its wording decided it).
    policy_number: str | None = None
    date_of_loss: str
    date_reported: str
    description: str
    outcome: str
    answer: str
    # The team's code for the answer (config/reason_codes.yaml); null without a mapping.
    code: str | None
    headline: str
    amount: LetterAmount
    facts: list[LetterFact]
    clauses: list[LetterClause]
    reason: str
    checked: str
    decided_by: DecidedBy
    decided_on: str  # the day of the decision in force, as the claimant's locale writes it
    amount_in_words: AmountInWords
    reference: int


HEADLINES = {
    "covered": "Your claim is covered.",
    "not_covered": "Your claim is not covered.",
    "needs_more_evidence": "We need more information before we can decide your claim.",
}


def deciding_clauses(resolution: Resolution, answer: str) -> list[LetterClause]:
    """The clauses the decision rests on: each one re-read and quoted truly, of a kind that
    supports `answer`, from the sides that gave that answer; each once, in the order the
    amount and `review show` take them (deciding.py), so the letter names first the clause the
    amount was computed from."""
    return [
        LetterClause(
            clause_id=c.clause_id or "",
            title=c.title or "",
            kind=c.kind or "",
            pages=list(c.pages),
            text=c.text or "",
            amended_by=c.amended_by,
        )
        for c in deciding_checks(resolution, sides_answering(resolution, answer))
    ]


def person_clauses(on_file: DecisionOnFile, answer: str) -> list[LetterClause]:
    """The clauses the decision in force rests on: those a person named when they decided (or
    proposed what another confirmed), in their words in force as re-read then; otherwise the
    clauses of the sides that gave the answer (deciding_clauses)."""
    review = on_file.review
    if review is None or not review.clauses:
        return deciding_clauses(on_file.resolution, answer)
    return [
        LetterClause(
            clause_id=c.clause_id,
            title=c.title,
            kind=c.kind,
            pages=list(c.pages),
            text=c.text,
            amended_by=c.amended_by or None,
        )
        for c in review.clauses
    ]


def verified_facts(resolution: Resolution, style: LetterStyle | None = None) -> list[LetterFact]:
    # A date a fact holds is written as the claimant's locale writes it; any other value as is.
    style = style or LetterStyle()
    return [
        LetterFact(
            name=f.name,
            label=f.name.replace("_", " ").capitalize(),
            value=plain_figure(f.value)
            if f.name == "amount_claimed"
            else plain_value(f.value or "", style),
            where=f.where or "",
            quote=f.quote,
        )
        for f in resolution.facts
        if f.status == "verified"
    ]


def plain_reason(answer: str, policy_id: str, clauses: list[LetterClause]) -> str:
    """The decision in plain words, naming the clauses it rests on."""
    named = "; ".join(
        " ".join(filter(None, (f"clause {c.clause_id}", c.amended_by)))
        + (f" ({c.title})" if c.title else "")
        for c in clauses
    )
    if answer == "covered" and clauses:
        return f"The loss you describe is covered by {named} of policy {policy_id}."
    if answer == "not_covered" and clauses:
        verb = "excludes" if any(c.kind == "exclusion" for c in clauses) else "does not cover"
        return f"Policy {policy_id} {verb} the loss you describe: see {named}."
    if answer == "needs_more_evidence":
        return "The information we hold is not enough to decide your claim either way."
    return f"Your claim was decided {answer.replace('_', ' ')} under policy {policy_id}."


def decided_by(on_file: DecisionOnFile) -> DecidedBy:
    rule = on_file.resolution.rule
    review = on_file.review
    if review is not None:
        return DecidedBy(
            kind="reviewer",
            rule=rule,
            reviewer=review.reviewer,
            reviewer_reason=review.reason,
            at=review.decided_at,
            summary=f"A claims reviewer, {review.reviewer}, decided your claim.",
        )
    if on_file.decided_by == "adjudicator":
        model = on_file.models.get("adjudicator", "the adjudicator model")
        return DecidedBy(
            kind="adjudicator",
            rule=rule,
            model=model,
            at=on_file.decided_at,
            summary=(
                f"The adjudicator model ({model}) chose between the two assessments of your "
                "claim; our claim rules then checked its answer and every clause it named "
                "against the policy document."
            ),
        )
    return DecidedBy(
        kind="rules",
        rule=rule,
        at=on_file.decided_at,
        summary=(
            "Our claim rules decided your claim, after every clause cited was read again from "
            "the policy document."
        ),
    )


def _answer(on_file: DecisionOnFile) -> str:
    """The decided answer, or NoLetter saying why there is none."""
    if on_file.review is not None:
        return on_file.review.decision
    if on_file.outcome in OPEN_OUTCOMES:
        raise NoLetter(
            f"claim {on_file.claim_id} is escalated ({on_file.outcome}) and waits for a "
            f"person's decision: no letter until it is decided ({command('review decide')})"
        )
    if on_file.outcome not in DECIDED_OUTCOMES or on_file.answer is None:
        raise NoLetter(f"claim {on_file.claim_id} has no decided answer ({on_file.outcome})")
    return on_file.answer


def amount_of(answer: str, payable: Payable | None, claimed: str, currency: str) -> LetterAmount:
    """The amount payable as the decision recorded it (computed in code from the schedule),
    or why there is none: a missing figure is never shown as a zero."""
    if answer != PAID_ANSWER:
        reason = {
            "not_covered": "Nothing is payable: the claim is not covered.",
            "needs_more_evidence": "Nothing is payable until the claim is decided.",
        }.get(answer, "Nothing is payable on this decision.")
        return LetterAmount(
            claimed=claimed, currency=currency, amount=None, reason=reason, steps=[]
        )
    if payable is None:
        reason = "No amount payable is recorded with this decision."
        return LetterAmount(
            claimed=claimed, currency=currency, amount=None, reason=reason, steps=[]
        )
    steps = [
        AmountStep(
            kind=step.kind,
            clause_id=step.clause_id,
            before=plain_amount(step.before),
            after=plain_amount(step.after),
            note=step.note,
        )
        for step in payable.steps
    ]
    return LetterAmount(
        claimed=claimed,
        currency=payable.currency,
        amount=None if payable.amount is None else plain_amount(payable.amount),
        reason=payable.reason or "",
        steps=steps,
    )


def payable_in_force(on_file: DecisionOnFile) -> Payable | None:
    """The amount payable of the decision in force: a person's, where one decided (worked out
    when they decided, from the clause they relied on), else the rules'. An escalated claim's
    resolution has none, so a person's covered decision would otherwise state no amount."""
    return on_file.review.payable if on_file.review is not None else on_file.resolution.payable


def stated_amount(on_file: DecisionOnFile) -> LetterAmount:
    """The amount a letter states for the decision in force; NoLetter where there is none to
    state (no decided answer yet, the claim file not kept, an amount beyond a letter)."""
    answer = _answer(on_file)
    if on_file.claim is None:
        raise NoLetter(f"claim {on_file.claim_id}: the claim file it was decided on is not kept")
    return _stated(on_file.claim_id, answer, payable_in_force(on_file), on_file.claim)


def letter_for(
    on_file: DecisionOnFile, codes: ExternalCodes | None = None, style: LetterStyle | None = None
) -> Letter:
    """The letter for a decided claim, with the team's code for its answer from `codes`, its
    dates and sums written as `style` (the claimants' locale) says; NoLetter for one escalated
    or without its claim file."""
    style = style or LetterStyle()
    answer = _answer(on_file)
    claim = on_file.claim
    if claim is None:
        raise NoLetter(f"claim {on_file.claim_id}: the claim file it was decided on is not kept")
    clauses = person_clauses(on_file, answer)
    by = decided_by(on_file)
    return Letter(
        claim_id=on_file.claim_id,
        claimant=claim.claimant,
        policy_id=claim.policy_id,
        policy_number=claim.policy_number,
        date_of_loss=long_date(claim.date_of_loss.isoformat(), style),
        date_reported=long_date(claim.date_reported.isoformat(), style),
        description=claim.description,
        outcome=on_file.outcome,
        answer=answer,
        # A refusal is coded by the kind of clause it rests on, as external_codes.py does.
        code=codes.for_answer(
            answer, clauses[0].kind if answer != PAID_ANSWER and clauses else None
        )
        if codes is not None
        else None,
        headline=HEADLINES.get(answer, f"Your claim is decided: {answer}."),
        amount=stated_amount(on_file),
        facts=verified_facts(on_file.resolution, style),
        clauses=clauses,
        reason=plain_reason(answer, claim.policy_id, clauses),
        checked=on_file.resolution.reason,
        decided_by=by,
        decided_on=long_date(by.at, style),
        amount_in_words=in_words(answer, payable_in_force(on_file), claim, style),
        reference=on_file.entry_seq,
    )


def _stated(claim_id: str, answer: str, payable: Payable | None, claim: ClaimFile) -> LetterAmount:
    """The letter's amounts; NoLetter where one is beyond what a letter states."""
    try:
        return amount_of(answer, payable, plain_amount(claim.amount), claim.currency)
    except ValueError as exc:
        raise NoLetter(f"claim {claim_id}: {exc}") from exc

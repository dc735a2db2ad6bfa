"""Sample letters that `config check` renders every template against.

Between them they take each branch a template may have: an amount with its steps and none, facts
and clauses and none, a clause as the form prints it and one an endorsement amended, each kind
of decider, a reviewer's reason and none. A name a template
uses that a letter lacks then fails here, before any claimant's letter is written.
"""

from __future__ import annotations

from decimal import Decimal

from claims_crew.letters.content import (
    AmountStep,
    DecidedBy,
    Letter,
    LetterAmount,
    LetterClause,
    LetterFact,
)
from claims_crew.letters.wording import AmountInWords, LetterStyle, long_date, money, step_words
from claims_crew.models import PayableStep

_CLAIMED = Decimal("4200")

_CLAUSE = LetterClause(
    clause_id="4.4(a)",
    title="Theft",
    kind="grant",
    pages=[2],
    text="(a) theft or attempted theft involving forcible and violent entry to the home;",
)
_AMENDED = LetterClause(
    clause_id="4.2(b)",
    title="",
    kind="grant",
    pages=[1],
    text="(b) sudden and accidental discharge of water from a household appliance less than 10 "
    "years old;",
    amended_by="as amended by endorsement HM-E-07 (page 1)",
)
_FACT = LetterFact(
    name="cause",
    label="Cause",
    value="burglars forced the back door",
    where="description",
    quote="Burglars forced the back door",
)
_STEPS = [
    AmountStep(kind="claimed", clause_id=None, before="4200", after="4200", note="claimed"),
    AmountStep(kind="deductible", clause_id="5.4", before="4200", after="3950", note="less 250"),
]
# A clause whose title the policy reader shortened (a long first line): the letter drops it.
_DEFINITION = LetterClause(
    clause_id="1.3",
    title="“Plumbing system” means the fixed pipes, tanks, cisterns, valves, taps, drains and "
    "fittings that supply or carry away water at the home, including any fixed heating or air "
    "conditioni…",
    kind="definition",
    pages=[1],
    text="1.3 “Plumbing system” means the fixed pipes, tanks, cisterns, valves, taps, drains and "
    "fittings that supply or carry away water at the home, including any fixed heating or air "
    "conditioning system that uses water or steam.",
)


def _in_words(style: LetterStyle, paid: bool) -> AmountInWords:
    """The sample sums and steps, worded as a real letter words them."""
    steps = [
        PayableStep(kind="claimed", clause_id=None, before=_CLAIMED, after=_CLAIMED, note=""),
        PayableStep(
            kind="limit",
            clause_id="4",
            before=_CLAIMED,
            after=_CLAIMED,
            note="within the limit of 50000 for 4",
        ),
        PayableStep(
            kind="deductible",
            clause_id="5.4",
            before=_CLAIMED,
            after=_CLAIMED - 250,
            note="less the deductible of 250 for the whole policy",
        ),
    ]
    return AmountInWords(
        claimed=money(_CLAIMED, "GBP", style),
        payable=money(_CLAIMED - 250, "GBP", style) if paid else None,
        steps=[step_words(s, _CLAIMED, "GBP", style) for s in steps] if paid else [],
    )


def _by(kind: str) -> DecidedBy:
    reviewer = kind == "reviewer"
    return DecidedBy(
        kind="reviewer" if reviewer else "adjudicator" if kind == "adjudicator" else "rules",
        rule="agree",
        model="openai/gpt-4o" if kind == "adjudicator" else None,
        reviewer="ana" if reviewer else None,
        reviewer_reason="The police report confirms the forced entry." if reviewer else None,
        at="2025-09-20T10:00:00Z",
        summary="Our claim rules decided your claim.",
    )


def sample_letters(style: LetterStyle | None = None) -> list[Letter]:
    style = style or LetterStyle()
    covered = Letter(
        claim_id="C-0001",
        claimant="Zoë Ångström-Łukasiewicz",
        policy_id="HM-HOME-001",
        date_of_loss=long_date("2025-09-14", style),
        date_reported=long_date("2025-09-15", style),
        description="Burglars forced the back door.",
        outcome="ACCEPTED",
        answer="covered",
        code="C01",
        headline="Your claim is covered.",
        amount=LetterAmount(claimed="4200", currency="GBP", amount="3950", reason="", steps=_STEPS),
        facts=[_FACT],
        clauses=[_CLAUSE],
        reason="The loss is covered by clause 4.4(a).",
        checked="Both assessments agree.",
        decided_by=_by("reviewer"),
        decided_on=long_date("2025-09-20T10:00:00Z", style),
        amount_in_words=_in_words(style, paid=True),
        reference=7,
    )
    nothing = LetterAmount(
        claimed="4200", currency="GBP", amount=None, reason="Nothing is payable.", steps=[]
    )
    return [
        covered,
        covered.model_copy(
            update={
                "answer": "not_covered",
                "code": None,
                "amount": nothing,
                "amount_in_words": _in_words(style, paid=False),
                "facts": [],
                "clauses": [],
                "decided_by": _by("adjudicator"),
            }
        ),
        covered.model_copy(
            update={
                "amount": nothing,
                "amount_in_words": _in_words(style, paid=False),
                "policy_number": "HM-25-00417",
                "clauses": [_AMENDED, _DEFINITION],
                "decided_by": _by("rules"),
            }
        ),
    ]

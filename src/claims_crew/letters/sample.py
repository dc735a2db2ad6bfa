"""Sample letters that `config check` renders every template against.

Between them they take each branch a template may have: an amount with its steps and none, facts
and clauses and none, a clause as the form prints it and one an endorsement amended, each kind
of decider, a reviewer's reason and none. A name a template
uses that a letter lacks then fails here, before any claimant's letter is written.
"""

from __future__ import annotations

from claims_crew.letters.content import (
    AmountStep,
    DecidedBy,
    Letter,
    LetterAmount,
    LetterClause,
    LetterFact,
)

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
    AmountStep(kind="claimed", clause_id=None, before="2600", after="2600", note="claimed"),
    AmountStep(kind="deductible", clause_id="5.4", before="2600", after="2350", note="less 250"),
]


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


def sample_letters() -> list[Letter]:
    covered = Letter(
        claim_id="C-0001",
        claimant="Zoë Ångström-Łukasiewicz",
        policy_id="HM-HOME-001",
        date_of_loss="2025-09-14",
        date_reported="2025-09-15",
        description="Burglars forced the back door.",
        outcome="ACCEPTED",
        answer="covered",
        code="C01",
        headline="Your claim is covered.",
        amount=LetterAmount(claimed="2600", currency="GBP", amount="2350", reason="", steps=_STEPS),
        facts=[_FACT],
        clauses=[_CLAUSE],
        reason="The loss is covered by clause 4.4(a).",
        checked="Both assessments agree.",
        decided_by=_by("reviewer"),
        reference=7,
    )
    nothing = LetterAmount(
        claimed="2600", currency="GBP", amount=None, reason="Nothing is payable.", steps=[]
    )
    return [
        covered,
        covered.model_copy(
            update={
                "answer": "not_covered",
                "code": None,
                "amount": nothing,
                "facts": [],
                "clauses": [],
                "decided_by": _by("adjudicator"),
            }
        ),
        covered.model_copy(
            update={
                "amount": nothing,
                "policy_number": "HM-25-00417",
                "clauses": [_AMENDED],
                "decided_by": _by("rules"),
            }
        ),
    ]

"""The case the rules read: both answers, the intake facts, the tool ledger and the policy.

Everything here is already read: reread.py looks up every cited clause in the PDF before the
rules run and hands the result in as a PolicyView, so deciding a case needs no I/O and the same
case always resolves the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from claims_crew.documents.record import PageText, UnreadPart
from claims_crew.models import Claim, ClaimFile, IntakeFacts, LedgerEntry, ParseFailure
from claims_crew.policy.amend import Amendment
from claims_crew.policy.schedule import ScheduleSource
from claims_crew.resolver.quotes import CLAUSE_QUOTES, Passage
from claims_crew.vocabulary import Side


@dataclass(frozen=True, slots=True)
class ReadClause:
    """A clause as the code re-read it from the policy PDF (with its sub-clauses' text)."""

    id: str
    title: str
    kind: str
    text: str
    # The text as clause quotes are matched against it, read once when the clause is read.
    passage: Passage
    # The ids of the clauses it sits within, nearest first: the cover sections a schedule's
    # limits and deductibles are written for (resolver/payable.py).
    within: tuple[str, ...] = ()
    # The pages of the PDF the clause is printed on, so a letter can cite them.
    pages: tuple[int, ...] = ()
    # Where an endorsement in force changed the form's words (policy/amend.py); None: the form's.
    amended: Amendment | None = None
    # The form's words before the change, as quotes are matched against them: a quote found
    # only there is the superseded wording.
    original: Passage | None = None

    @classmethod
    def of(
        cls,
        id: str,
        title: str,
        kind: str,
        text: str,
        within: tuple[str, ...] = (),
        pages: tuple[int, ...] = (),
        amended: Amendment | None = None,
    ) -> ReadClause:
        original = (
            CLAUSE_QUOTES.read(amended.original)
            if amended is not None and amended.original
            else None
        )
        return cls(
            id, title, kind, text, CLAUSE_QUOTES.read(text), within, pages, amended, original
        )


@dataclass(frozen=True, slots=True)
class FittingClause:
    """A clause of the policy that the claim's words fit, as the code's own search found it
    (policy/fit.py), not as any agent cited it."""

    clause: ReadClause
    score: float  # in rare words (policy/fit.py)
    words: tuple[str, ...]  # the claim's words found in it
    # Clause keys whose lookup shows its text: its own and those of the clauses it sits within.
    shown_by: frozenset[str]

    def named(self) -> str:
        """The clause as a person reads it: "7.2 (Flood)"."""
        return f"{self.clause.id} ({self._title()})"

    def found_on(self) -> str:
        """The clause and the claim's words it was found on: "7.2 (Flood: river, flood)"."""
        return f"{self.clause.id} ({self._title()}: {', '.join(self.words)})"

    def _title(self) -> str:
        title = self.clause.title.rstrip(".;, ")
        return title if len(title) <= 60 else title[:59] + "…"


@dataclass(frozen=True)
class PolicyView:
    """The policy as the code found it, with every clause the agents cited already looked up.

    `clauses` maps a citation exactly as an agent wrote it to the clause, or None if the policy
    has no such clause.
    """

    policy_id: str
    found: bool
    unreadable: str | None = None  # a PolicyError code, when the PDF could not be read
    in_force_from: date | None = None
    in_force_to: date | None = None
    sha256: str | None = None
    # Hash of the kind corrections from policies/index.yaml the clauses were read with.
    corrections_sha256: str | None = None
    clauses: Mapping[str, ReadClause | None] = field(default_factory=dict)
    # The schedule the claim is paid under (index.yaml, or the claim's own schedule file).
    schedule: ScheduleSource | None = None
    # Why each endorsement in force whose reading no person confirmed as it reads now decides
    # nothing alone (policy/confirmations.py), naming the endorsement; empty: none such.
    unconfirmed: tuple[str, ...] = ()

    def in_force_on(self, day: date) -> bool:
        if self.in_force_from is None:
            return True  # a PDF given by path has no dates to check against
        return self.in_force_from <= day and (self.in_force_to is None or day <= self.in_force_to)


@dataclass(frozen=True)
class Case:
    """Everything one decision depends on."""

    claim_file: ClaimFile
    facts: IntakeFacts | ParseFailure
    policy: Claim | ParseFailure
    fraud: Claim | ParseFailure
    ledger: Sequence[LedgerEntry]
    view: PolicyView
    # The attachments' text as the intake agent was shown it, by file name: with the claim
    # file's description, the only words a fact's quote may come from.
    attachments: Mapping[str, str] = field(default_factory=dict)
    # The pages of each PDF or image attachment as intake read them (text layer or OCR): a
    # fact's quote is found on one, which it then cites.
    pages: Mapping[str, Sequence[PageText]] = field(default_factory=dict)
    # The exclusions the claim's words fit (reread.fitting_exclusions): given at every Case
    # built, so none is built without the search; empty when the search finds none or is off.
    exclusions: tuple[FittingClause, ...] = field(kw_only=True)
    # The parts inside the attachments that intake could not read (documents/record.py), from
    # the stored records, decoration too: the gates hold back a decision while one that is not
    # decoration is unread (unread_part).
    unread: Sequence[UnreadPart] = field(default=(), kw_only=True)

    def claim(self, side: Side) -> Claim | ParseFailure:
        return self.policy if side == "policy" else self.fraud


def cited_clauses(*answers: Claim | ParseFailure) -> list[str]:
    """Every clause id the parsed answers cite, as written: what the re-read must look up."""
    return [e.clause_id for a in answers if isinstance(a, Claim) for e in a.evidence]

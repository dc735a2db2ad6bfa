"""Reading what a case needs from the policy library, before the pure rules run.

This is the resolver's only I/O: open the policy, check it is known, look up every clause
either agent cited, exactly as they wrote it, and search for the exclusions the claim's words
fit (policy/fit.py), as an adjuster checks them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from claims_crew.documents.record import PageText, UnreadPart
from claims_crew.errors import PolicyError
from claims_crew.models import Claim, ClaimFile, IntakeFacts, LedgerEntry, ParseFailure, Payable
from claims_crew.policy.confirmations import unconfirmed
from claims_crew.policy.document import LookupMiss, PolicyDocument
from claims_crew.policy.fit import fitting
from claims_crew.policy.ids import clause_key
from claims_crew.policy.library import PolicyLibrary
from claims_crew.policy.schedule import ScheduleSource, find_schedule
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.case import Case, FittingClause, PolicyView, ReadClause, cited_clauses
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.deciding import deciding_checks, sides_answering
from claims_crew.resolver.exclusions import claim_words
from claims_crew.resolver.payable import compute_payable
from claims_crew.vocabulary import PAID_ANSWER

# PolicyError codes that mean there is no such policy (a form, a file or an issued policy's
# number), as opposed to one that exists and cannot be read.
NOT_FOUND_CODES = frozenset({"not_found", "unknown_policy"})


def read_clause(doc: PolicyDocument, citation: str) -> ReadClause | None:
    found = doc.lookup(citation)
    if isinstance(found, LookupMiss):
        return None
    within = tuple(doc.ancestors(found.id))
    return ReadClause.of(
        found.id,
        found.title,
        found.kind,
        doc.full_text(found.id),
        within,
        pages=tuple(found.pages),
        amended=doc.amendments.get(found.id),
    )


def open_wording(
    library: PolicyLibrary, policy_ref: str, claim_file: ClaimFile | None
) -> PolicyDocument:
    """The wording a claim is decided on: its issued policy in force on the date of loss when
    it names a policy number (library.for_claim), else the form. A `policy_ref` other than the
    claim's own policy (a case file naming another form or a PDF path) is that wording alone:
    the claim's endorsements amend its own form, not another."""
    if claim_file is None or policy_ref != claim_file.policy_id:
        return library.open(policy_ref)
    return library.for_claim(
        claim_file.policy_id, claim_file.policy_number, claim_file.date_of_loss
    )


def policy_view(
    library: PolicyLibrary,
    policy_ref: str,
    citations: Iterable[str],
    claim_file: ClaimFile | None = None,
) -> PolicyView:
    """The policy by id (from index.yaml) or PDF path, with each citation looked up; by id,
    the clauses carry the kinds as corrected in index.yaml (the library applies them). With the
    claim file, the wording in force for it (open_wording), in force for its issued policy's
    period; an unknown policy number is a policy not found."""
    entry = library.entries.get(policy_ref)
    try:
        path = library.path_of(policy_ref)
    except PolicyError:
        return PolicyView(policy_id=policy_ref, found=False)
    try:
        doc = open_wording(library, policy_ref, claim_file)
    except PolicyError as exc:
        found = exc.code not in NOT_FOUND_CODES
        return PolicyView(policy_id=policy_ref, found=found, unreadable=exc.code if found else None)
    start, end = (entry.in_force_from, entry.in_force_to) if entry else (None, None)
    if doc.issued is not None:
        # The policyholder's period of insurance, not the dates the form is sold between.
        start, end = doc.issued.period.start, doc.issued.period.end
    return PolicyView(
        policy_id=policy_ref if entry is not None else path.name,
        found=True,
        in_force_from=start,
        in_force_to=end,
        sha256=doc.sha256,
        corrections_sha256=doc.corrections_sha256,
        clauses={c: read_clause(doc, c) for c in dict.fromkeys(citations)},
        unconfirmed=tuple(unconfirmed(doc.readings, library.confirmations).values()),
    )


def fitting_exclusions(
    library: PolicyLibrary,
    policy_ref: str,
    claim_file: ClaimFile,
    facts: IntakeFacts | ParseFailure,
    config: ResolutionConfig,
) -> tuple[FittingClause, ...]:
    """The exclusions of the policy that the claim's words fit (resolution.yaml's
    `exclusions`); none when the check is off or the policy cannot be read (the checks rule
    escalates that case anyway)."""
    settings = config.exclusions
    if not settings.check:
        return ()
    try:
        doc = open_wording(library, policy_ref, claim_file)
    except PolicyError:
        return ()
    fits = fitting(
        doc,
        claim_words(claim_file, facts),
        settings.kinds,
        min_words=settings.min_words,
        min_score=settings.min_score,
        common_share=settings.common_share,
    )
    return tuple(
        FittingClause(
            ReadClause.of(
                f.clause.id,
                f.clause.title,
                f.clause.kind,
                doc.full_text(f.clause.id),
                pages=tuple(f.clause.pages),
                amended=doc.amendments.get(f.clause.id),
            ),
            f.score,
            f.words,
            frozenset(clause_key(c) for c in f.shown_by),
        )
        for f in fits
    )


def schedule_for(library: PolicyLibrary, ref: str, claim_file: ClaimFile) -> ScheduleSource:
    """The schedule the claim is paid under, its clauses checked against the wording in force:
    one that names a clause the policy lacks (a replaced PDF, a typo `config check` reports)
    gives no schedule, so no amount is computed on limits that match nothing.

    The claim's own schedule file when it names one, else its issued policy's declarations,
    else the form's schedule in index.yaml."""
    entry = library.entries.get(ref)
    named = claim_file.schedule or _declarations(library, ref, claim_file)
    found = find_schedule(library.root, ref, entry.schedule if entry else None, named)
    if found.schedule is None:
        return found
    try:
        doc = open_wording(library, ref, claim_file)
    except PolicyError as exc:
        return ScheduleSource(found.name, None, f"{ref} cannot be read: {exc.message}")
    refs = [r for item in found.schedule.items for r in (item.clause, item.section) if r]
    if missing := [r for r in dict.fromkeys(refs) if isinstance(doc.lookup(r), LookupMiss)]:
        return ScheduleSource(
            found.name, None, f"{found.name} names clause(s) {ref} lacks: {', '.join(missing)}"
        )
    return found


def _declarations(library: PolicyLibrary, ref: str, claim_file: ClaimFile) -> str | None:
    """The schedule file of the claim's issued policy, when it names one on this form."""
    issued = library.issued.get(claim_file.policy_number or "")
    if issued is None or ref != claim_file.policy_id or issued.form != ref:
        return None
    return issued.declarations


def read_case(
    library: PolicyLibrary,
    config: ResolutionConfig,
    claim_file: ClaimFile,
    facts: IntakeFacts | ParseFailure,
    answers: tuple[Claim | ParseFailure, Claim | ParseFailure],
    ledger: Sequence[LedgerEntry],
    attachments: Mapping[str, str] | None = None,
    policy_ref: str | None = None,
    pages: Mapping[str, Sequence[PageText]] | None = None,
    unread: Sequence[UnreadPart] = (),
) -> Case:
    """The case the rules decide, with everything they read from the policy: each clause the
    policy and fraud `answers` cite, re-read, and the exclusions the claim's words fit. The
    policy is the claim file's unless `policy_ref` names another (an id or a PDF path)."""
    ref = policy_ref or claim_file.policy_id
    policy, fraud = answers
    view = policy_view(library, ref, cited_clauses(policy, fraud), claim_file)
    schedule = schedule_for(library, ref, claim_file)
    return Case(
        claim_file,
        facts,
        policy,
        fraud,
        ledger,
        replace(view, schedule=schedule),
        dict(attachments or {}),
        dict(pages or {}),
        exclusions=fitting_exclusions(library, ref, claim_file, facts, config),
        unread=tuple(unread),
    )


def person_payable(
    library: PolicyLibrary,
    claim_file: ClaimFile,
    resolution: Resolution | None,
    deciding: str | None = None,
) -> Payable:
    """The amount payable when a person decides the claim covered.

    With `deciding`, the clause the person named (person_clauses.py), the amount is computed
    from that clause. Otherwise a covered outcome a gate held back keeps the amount computed
    for it, and the deciding clause is the first deciding clause (deciding.py) of the sides
    that answered covered, as a letter for the decision lists them; with none, there is no
    amount and the reason says so.
    """
    if deciding is None and resolution is not None and resolution.payable is not None:
        return resolution.payable
    source = schedule_for(library, claim_file.policy_id, claim_file)
    if deciding is None and resolution is not None:
        checks = deciding_checks(resolution, sides_answering(resolution, PAID_ANSWER))
        deciding = checks[0].cited if checks else None
    within: tuple[str, ...] = ()
    try:
        doc = open_wording(library, claim_file.policy_id, claim_file) if deciding else None
    except PolicyError:
        doc = None
    if doc is not None and deciding and (clause := read_clause(doc, deciding)) is not None:
        within = (clause.id, *clause.within)
    return compute_payable(claim_file.amount, claim_file.currency, source, within)

"""The clauses a person may rest a decision on, re-read in the wording in force for the claim.

A reviewer who decides an escalation names the clause(s) the decision rests on. The ones a
side cited and the re-read verified are offered first; any other clause of the wording in force
may be named too. Either way the words kept with the decision (its audit entry, its letter) are
the words this module reads from the policy, as amended by any endorsement in force, never words
the reviewer typed. Like reread.py, this is policy I/O: the store only keeps what it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from claims_crew.errors import UnknownClause
from claims_crew.models import ClaimFile
from claims_crew.policy.document import LookupMiss, PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import PersonClause
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.case import ReadClause
from claims_crew.resolver.reread import open_wording, read_clause

__all__ = ["UnknownClause", "clause_choices", "read_person_clauses", "verified_ids"]


def verified_ids(resolution: Resolution | None) -> list[str]:
    """The policy's ids of the clauses either side cited that the re-read verified, in the
    order the sides cited them (policy first), each once."""
    if resolution is None:
        return []
    found = (
        check.clause_id
        for side in resolution.sides.values()
        for check in side.clauses
        if check.status == "verified" and check.clause_id is not None
    )
    return list(dict.fromkeys(found))


def _deleted(clause: ReadClause) -> bool:
    """An endorsement in force deleted it: it has no words in force to rest a decision on."""
    return clause.amended is not None and clause.amended.kind == "delete"


def _person_clause(clause: ReadClause, verified: Iterable[str]) -> PersonClause:
    return PersonClause(
        clause_id=clause.id,
        title=clause.title,
        text=clause.text,
        amended_by=clause.amended.cited() if clause.amended is not None else "",
        verified=clause.id in verified,
        kind=clause.kind,
        pages=clause.pages,
    )


def _wording(library: PolicyLibrary, claim_file: ClaimFile) -> PolicyDocument:
    return open_wording(library, claim_file.policy_id, claim_file)


def clause_choices(
    library: PolicyLibrary, claim_file: ClaimFile, resolution: Resolution | None
) -> list[PersonClause]:
    """Every clause a person may name: those the re-read verified first, then every other
    clause of the wording in force in document order (none an endorsement deleted)."""
    doc = _wording(library, claim_file)
    verified = verified_ids(resolution)
    first = [read_clause(doc, clause_id) for clause_id in verified]
    rest = [read_clause(doc, c.id) for c in doc.clauses if c.id not in verified]
    return [
        _person_clause(clause, verified)
        for clause in (*first, *rest)
        if clause is not None and not _deleted(clause)
    ]


def read_person_clauses(
    library: PolicyLibrary,
    claim_file: ClaimFile,
    resolution: Resolution | None,
    clause_ids: Sequence[str],
) -> tuple[PersonClause, ...]:
    """Each clause named, re-read in the wording in force (a printed label or loose reference
    finds its clause, as the lookup tool's do), each once in the order named; UnknownClause
    naming the first the wording lacks or an endorsement deleted."""
    doc = _wording(library, claim_file)
    verified = verified_ids(resolution)
    read: dict[str, PersonClause] = {}
    for named in clause_ids:
        found = doc.lookup(named) if named.strip() else LookupMiss(named, ())
        clause = read_clause(doc, named) if not isinstance(found, LookupMiss) else None
        if clause is None or _deleted(clause):
            raise UnknownClause(named, _why_unknown(named, claim_file, found, clause))
        read.setdefault(clause.id, _person_clause(clause, verified))
    return tuple(read.values())


def _why_unknown(
    named: str, claim_file: ClaimFile, found: object, clause: ReadClause | None
) -> str:
    """Which clause is unknown, and where it was looked for."""
    number = f" (number {claim_file.policy_number})" if claim_file.policy_number else ""
    where = f"the wording in force of policy {claim_file.policy_id}{number}"
    if clause is not None and clause.amended is not None:
        return f"clause {named!r} is not in {where}: deleted by {clause.amended.where()}"
    near = found.near if isinstance(found, LookupMiss) else ()
    hint = f"; near ids: {', '.join(near)}" if near else ""
    return f"clause {named!r} is not in {where}{hint}"

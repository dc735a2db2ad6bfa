"""Reading what a case needs from the policy library, before the pure rules run.

This is the resolver's only I/O: open the policy, check it is known, and look up every clause
either agent cited, exactly as they wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable

from claims_crew.errors import PolicyError
from claims_crew.policy.document import LookupMiss, PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver.case import PolicyView, ReadClause


def read_clause(doc: PolicyDocument, citation: str) -> ReadClause | None:
    found = doc.lookup(citation)
    if isinstance(found, LookupMiss):
        return None
    return ReadClause.of(found.id, found.title, found.kind, doc.full_text(found.id))


def policy_view(library: PolicyLibrary, policy_ref: str, citations: Iterable[str]) -> PolicyView:
    """The policy by id (from index.yaml) or PDF path, with each citation looked up; by id,
    the clauses carry the kinds as corrected in index.yaml (the library applies them)."""
    entry = library.entries.get(policy_ref)
    try:
        path = library.path_of(policy_ref)
    except PolicyError:
        return PolicyView(policy_id=policy_ref, found=False)
    try:
        doc = library.open(policy_ref)
    except PolicyError as exc:
        found = exc.code != "not_found"
        return PolicyView(policy_id=policy_ref, found=found, unreadable=exc.code if found else None)
    return PolicyView(
        policy_id=policy_ref if entry is not None else path.name,
        found=True,
        in_force_from=entry.in_force_from if entry else None,
        in_force_to=entry.in_force_to if entry else None,
        sha256=doc.sha256,
        corrections_sha256=doc.corrections_sha256,
        clauses={c: read_clause(doc, c) for c in dict.fromkeys(citations)},
    )

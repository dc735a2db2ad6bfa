"""The policy library: PDF text → clause tree → on-disk index, lookup and search."""

from claims_crew.policy.document import LookupMiss, PolicyDocument, SearchHit
from claims_crew.policy.library import PolicyEntry, PolicyLibrary, open_pdf
from claims_crew.policy.segment import CLAUSE_KINDS, Clause, ClauseKind

__all__ = [
    "CLAUSE_KINDS",
    "Clause",
    "ClauseKind",
    "LookupMiss",
    "PolicyDocument",
    "PolicyEntry",
    "PolicyLibrary",
    "SearchHit",
    "open_pdf",
]

"""JSON shapes of the policy commands: scripts and other tools read them, so they are a contract."""

from __future__ import annotations

from typing import Any

from claims_crew.policy.document import PolicyDocument, SearchHit
from claims_crew.policy.segment import Clause


def clause_row(clause: Clause) -> dict[str, Any]:
    return {
        "id": clause.id,
        "label": clause.label,
        "title": clause.title,
        "kind": clause.kind,
        "kind_reason": clause.kind_reason,
        "pages": list(clause.pages),
        "parent": clause.parent,
    }


def clause_detail(doc: PolicyDocument, clause: Clause) -> dict[str, Any]:
    """One clause with its whole text, sub-clauses included, and where its words come from:
    the form, or the endorsement that changed it (with the form's words before it did)."""
    from claims_crew.policy.tree import source_json

    amendment = doc.amendments.get(clause.id)
    source = source_json(clause, amendment)
    if amendment is not None:
        source["original"] = amendment.original
    return {**clause_row(clause), "text": doc.full_text(clause.id), "source": source}


def clauses_listing(
    doc: PolicyDocument, policy_id: str | None, with_text: bool = False
) -> dict[str, Any]:
    """Every clause in document order; `with_text` adds each clause's own text (its own lines,
    not its sub-clauses', which are rows of their own), so the listing reads as the whole
    policy once."""
    return {
        "policy": {
            "id": policy_id,
            "file": str(doc.path),
            "sha256": doc.sha256,
            "pages": doc.page_count,
            "clauses": len(doc.clauses),
        },
        "clauses": [
            {**clause_row(c), "text": c.text} if with_text else clause_row(c) for c in doc.clauses
        ],
    }


def search_results(hits: list[SearchHit]) -> dict[str, Any]:
    return {
        "hits": [
            {
                "id": h.clause.id,
                "label": h.clause.label,
                "kind": h.clause.kind,
                "pages": list(h.clause.pages),
                "snippet": h.snippet,
                "score": round(h.score, 4),
            }
            for h in hits
        ]
    }

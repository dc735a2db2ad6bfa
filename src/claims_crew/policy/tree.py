"""A policy's clauses as a tree: what `policy tree` prints, writes as JSON and draws as a page.

The clauses are stored flat in document order, each naming its parent; a reviewer checking a
new wording wants them nested, with each clause's kind and the reason for it beside its pages.
The JSON shape is a contract (docs/policy-library.md, "Onboarding your own wording"), built
only here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from claims_crew.policy.amend import Amendment
from claims_crew.policy.changes import DONE
from claims_crew.policy.confirmations import Confirmation, reading_state
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.segment import CLAUSE_KINDS, Clause


@dataclass(slots=True)
class TreeNode:
    """One clause and the clauses under it, in document order."""

    clause: Clause
    children: list[TreeNode] = field(default_factory=list)

    def as_json(self, amendments: Mapping[str, Amendment] | None = None) -> dict[str, Any]:
        c = self.clause
        return {
            "id": c.id,
            "label": c.label,
            "title": c.title,
            "kind": c.kind,
            "kind_reason": c.kind_reason,
            "pages": list(c.pages),
            "source": source_json(c, (amendments or {}).get(c.id)),
            "children": [child.as_json(amendments) for child in self.children],
        }


def source_json(clause: Clause, amendment: Amendment | None) -> dict[str, Any]:
    """Where a clause's words in force come from: the form's pages, or an endorsement's."""
    if amendment is None:
        return {"from": "form", "pages": list(clause.pages)}
    return {
        "from": "endorsement",
        "endorsement": amendment.endorsement,
        "title": amendment.title,
        "effective": amendment.effective.isoformat(),
        "change": amendment.kind,
        "pages": list(amendment.pages),
    }


def source_text(clause: Clause, amendment: Amendment | None) -> str:
    """The same in a few words: "form p.3", "HM-E-07 p.1 replaced"."""
    if amendment is None:
        return f"form p.{','.join(map(str, clause.pages))}"
    pages = ",".join(map(str, amendment.pages))
    return f"{amendment.endorsement} p.{pages} {DONE[amendment.kind]}"


def issued_json(
    doc: PolicyDocument, on: date | None, confirmations: Mapping[str, Confirmation] | None = None
) -> dict[str, Any] | None:
    """The policy as issued that the tree shows, on which day, each endorsement's reading as
    confirmed or not (`confirmations`: policies/confirmations.yaml), and the changes not
    applied."""
    if doc.issued is None:
        return None
    issued = doc.issued
    return {
        "number": issued.number,
        "form": issued.form,
        "holder": issued.holder,
        "period": {"from": issued.period.start.isoformat(), "to": issued.period.end.isoformat()},
        "declarations": issued.declarations,
        "on": on.isoformat() if on is not None else None,
        "endorsements": [
            {
                "endorsement": e.endorsement,
                "effective": e.effective.isoformat(),
                **reading_json(doc, e.endorsement, confirmations or {}),
            }
            for e in (issued.in_force_on(on) if on is not None else issued.endorsements)
        ],
        "unmatched": [
            {
                "endorsement": u.endorsement,
                "change": u.number,
                "kind": u.change.kind,
                "target": u.change.target,
                "page": u.change.page,
                "why": u.why,
            }
            for u in doc.unmatched
        ],
    }


def reading_json(
    doc: PolicyDocument, name: str, confirmations: Mapping[str, Confirmation]
) -> dict[str, Any]:
    """Whether endorsement `name`'s reading, as the wording in force was built from it, is the
    one a lead confirmed: "confirmed", "unconfirmed" or "changed" (None where it was not read,
    as for a policy shown on no day), who confirmed it and when, and the command that does."""
    digest = doc.readings.get(name)
    confirmation = confirmations.get(name)
    state = None if digest is None else reading_state(digest, confirmation)
    return {
        "reading": state,
        "confirmed_by": confirmation.by if confirmation is not None else None,
        "confirmed_at": confirmation.at if confirmation is not None else None,
        "confirm": None if state in (None, "confirmed") else f"claims-crew policy confirm {name}",
    }


def reading_words(entry: Mapping[str, Any]) -> str | None:
    """Where one of `issued_json`'s endorsements stands, in the words the terminal tree and the
    tree page both print; None where its reading is confirmed as it reads now, or was not read."""
    if entry["reading"] == "unconfirmed":
        return "NOT confirmed by a person"
    if entry["reading"] == "changed":
        return f"CHANGED since {entry['confirmed_by']} confirmed it at {entry['confirmed_at']}"
    return None


def build_tree(clauses: Sequence[Clause]) -> list[TreeNode]:
    """The top-level clauses, each holding its sub-clauses; a clause whose parent is missing
    (it cannot be, in a tree the segmenter wrote) is kept at the top rather than lost."""
    nodes = {c.id: TreeNode(c) for c in clauses}
    roots: list[TreeNode] = []
    for c in clauses:
        parent = nodes.get(c.parent) if c.parent is not None else None
        (parent.children if parent is not None else roots).append(nodes[c.id])
    return roots


def kind_counts(clauses: Sequence[Clause]) -> dict[str, int]:
    """Clauses of each kind, every kind listed (a kind with none shows 0)."""
    counts = Counter(c.kind for c in clauses)
    return {kind: counts.get(kind, 0) for kind in CLAUSE_KINDS}


def corrected_count(clauses: Sequence[Clause]) -> int:
    return sum(c.kind_reason.startswith("correction:") for c in clauses)


def doubtful_clauses(doc: PolicyDocument) -> list[str]:
    """The ids of the clauses, in order, whose text holds a line OCR read with low confidence
    (none for a wording with a text layer). Spacing aside, as the segmenter may rejoin lines."""
    if doc.ocr is None:
        return []
    lines = [" ".join(n.text.split()) for n in doc.ocr.low_confidence_lines]
    lines = [line for line in lines if line]
    return [
        c.id
        for c in doc.clauses
        if (text := " ".join(f"{c.title} {c.text}".split())) and any(line in text for line in lines)
    ]


def ocr_json(doc: PolicyDocument, reviewed: bool) -> dict[str, Any] | None:
    """How OCR read a scanned wording, for `policy tree`; None for a text layer."""
    if doc.ocr is None:
        return None
    return {
        **doc.ocr.model_dump(mode="json"),
        "reviewed": reviewed,
        "doubtful_clauses": doubtful_clauses(doc),
    }


def tree_json(
    doc: PolicyDocument,
    policy_id: str | None,
    reviewed: bool = False,
    on: date | None = None,
    confirmations: Mapping[str, Confirmation] | None = None,
) -> dict[str, Any]:
    return {
        "policy": {
            "id": policy_id,
            "file": str(doc.path),
            "sha256": doc.sha256,
            "corrections_sha256": doc.corrections_sha256,
            "pages": doc.page_count,
            "clauses": len(doc.clauses),
            "corrected": corrected_count(doc.clauses),
            "kinds": kind_counts(doc.clauses),
            # Read by OCR: its confidence, its doubtful lines and clauses, and whether
            # policies/index.yaml says a person has reviewed it (`ocr_reviewed`).
            "ocr": ocr_json(doc, reviewed),
            # A policy number: the policy as issued, the day, the endorsements in force that
            # day (each with its reading confirmed or not) and the changes whose target the
            # form lacks; null for a form on its own.
            "issued": issued_json(doc, on, confirmations),
        },
        "tree": [node.as_json(doc.amendments) for node in build_tree(doc.clauses)],
    }

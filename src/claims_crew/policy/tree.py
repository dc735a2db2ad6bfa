"""A policy's clauses as a tree: what `policy tree` prints, writes as JSON and draws as a page.

The clauses are stored flat in document order, each naming its parent; a reviewer checking a
new wording wants them nested, with each clause's kind and the reason for it beside its pages.
The JSON shape is a contract (docs/policy-library.md, "Onboarding your own wording"), built
only here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.segment import CLAUSE_KINDS, Clause


@dataclass(slots=True)
class TreeNode:
    """One clause and the clauses under it, in document order."""

    clause: Clause
    children: list[TreeNode] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        c = self.clause
        return {
            "id": c.id,
            "label": c.label,
            "title": c.title,
            "kind": c.kind,
            "kind_reason": c.kind_reason,
            "pages": list(c.pages),
            "children": [child.as_json() for child in self.children],
        }


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


def tree_json(doc: PolicyDocument, policy_id: str | None, reviewed: bool = False) -> dict[str, Any]:
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
        },
        "tree": [node.as_json() for node in build_tree(doc.clauses)],
    }

"""What the endorsement reader reads on one page of text, as (kind, target, within) triples:
the tests of its phrase families, placements and safety rules compare these."""

from __future__ import annotations

from claims_crew.policy.changes import read_changes


def read_as(text: str) -> list[tuple[str, str, str]]:
    """Each change read from `text`, one page, as (kind, target, within)."""
    return [(c.kind, c.target, c.within) for c in read_changes([text])]

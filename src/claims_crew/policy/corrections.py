"""Kind corrections: what a claims team says a clause is, where the segmenter read it wrongly.

A policy's entry in policies/index.yaml may list corrections. Each names its clauses one way:

- ``clause: "4.2"``: the clause with exactly that canonical id;
- ``prefix: "GE"``: the clause with that id and every clause whose id continues it after a
  separator ("GE.1", "GE(a)", "GE/x", "GE~2"), but not "GEN" — so ``prefix: "Section I"`` never
  reaches "Section II";
- ``title: "General Exceptions"``: every clause with that title (case and spacing ignored) and
  every clause under it in the tree.

When several corrections reach one clause, the most specific wins: a clause id over a prefix, a
prefix over a title, a longer prefix over a shorter one, a nearer heading over one further up;
between equals, the later one in the list. The corrected clause says why in its kind_reason
("correction: title 'General Exceptions'"), so a reader of the tree, the tool's answer or a
decision can tell a corrected kind from one read from the words.

Pure functions over clauses: no I/O. The library applies them where it opens a policy by id, so
the lookup tool and the resolver's re-read see the same kinds.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from claims_crew.policy.segment import Clause, ClauseKind

Target = Literal["clause", "prefix", "title"]
TARGETS: tuple[Target, ...] = ("clause", "prefix", "title")
# How specific each way of naming clauses is; the higher wins on a clause both reach.
_RANK: dict[Target, int] = {"title": 1, "prefix": 2, "clause": 3}


class Correction(BaseModel):
    """One kind correction: exactly one of clause, prefix or title, and the kind to give."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    clause: str | None = Field(None, description="A canonical clause id: that clause alone.")
    prefix: str | None = Field(
        None,
        description="An id prefix: the clause with that id and those whose id continues it "
        "after a separator.",
    )
    title: str | None = Field(
        None, description="A heading title, case and spacing ignored: it and its sub-clauses."
    )
    kind: ClauseKind = Field(description="The kind these clauses really are.")
    why: str | None = Field(None, description="Why, in the team's words; shown with the kind.")

    @model_validator(mode="after")
    def _one_target(self) -> Correction:
        given = [t for t in TARGETS if getattr(self, t) is not None]
        if len(given) != 1:
            raise ValueError("a correction names exactly one of clause, prefix or title")
        if not str(getattr(self, given[0])).strip():
            raise ValueError(f"{given[0]} is empty")
        return self

    @property
    def target(self) -> tuple[Target, str]:
        """Which way it names clauses, and the value."""
        for name in TARGETS:
            value = getattr(self, name)
            if value is not None:
                return name, str(value)
        raise AssertionError("validated to have one target")  # pragma: no cover

    def describe(self) -> str:
        """How it names its clauses, as the kind reason and config check print it."""
        name, value = self.target
        return f"title {value!r}" if name == "title" else f"{name} {value}"

    def reason(self) -> str:
        why = f" ({' '.join(self.why.split())})" if self.why and self.why.strip() else ""
        return f"correction: {self.describe()}{why}"


def _fold(title: str) -> str:
    return " ".join(title.split()).casefold()


def _continues(clause_id: str, prefix: str) -> bool:
    if clause_id == prefix:
        return True
    if not clause_id.startswith(prefix):
        return False
    # "4." continues into "4.1"; "GE" continues into "GE.1" but not into "GEN".
    return not prefix[-1].isalnum() or not clause_id[len(prefix)].isalnum()


def _depths(clauses: Sequence[Clause]) -> dict[str, int]:
    parent = {c.id: c.parent for c in clauses}
    depths: dict[str, int] = {}
    for c in clauses:
        depth, walk, seen = 0, c.parent, {c.id}
        while walk is not None and walk not in seen:
            seen.add(walk)
            depth += 1
            walk = parent.get(walk)
        depths[c.id] = depth
    return depths


def _reach(
    clauses: Sequence[Clause], correction: Correction, depths: dict[str, int]
) -> dict[str, int]:
    """Clause id → how specifically this correction reaches it (higher is more specific)."""
    name, value = correction.target
    if name == "clause":
        return {c.id: 0 for c in clauses if c.id == value}
    if name == "prefix":
        return {c.id: len(value) for c in clauses if _continues(c.id, value)}
    wanted = _fold(value)
    reached: dict[str, int] = {}
    # Clauses come in document order, a parent before its children: one pass sees every heading
    # before what it holds.
    for c in clauses:
        if _fold(c.title) == wanted:
            reached[c.id] = depths.get(c.id, 0)
        elif c.parent is not None and c.parent in reached:
            reached[c.id] = reached[c.parent]
    return reached


def matched_ids(clauses: Sequence[Clause], correction: Correction) -> list[str]:
    """The ids of the clauses a correction reaches, in document order."""
    return list(_reach(clauses, correction, _depths(clauses)))


def apply_corrections(clauses: Sequence[Clause], corrections: Sequence[Correction]) -> list[Clause]:
    """The clauses with each corrected one given its kind and a kind_reason naming the
    correction; clauses no correction reaches come back unchanged."""
    if not corrections:
        return list(clauses)
    depths = _depths(clauses)
    best: dict[str, tuple[tuple[int, int, int], Correction]] = {}
    for order, correction in enumerate(corrections):
        rank = _RANK[correction.target[0]]
        for clause_id, specificity in _reach(clauses, correction, depths).items():
            key = (rank, specificity, order)
            if clause_id not in best or key > best[clause_id][0]:
                best[clause_id] = (key, correction)
    out = []
    for c in clauses:
        if c.id in best:
            correction = best[c.id][1]
            c = c._replace(kind=correction.kind, kind_reason=correction.reason())
        out.append(c)
    return out


def unmatched(
    clauses: Sequence[Clause], corrections: Sequence[Correction]
) -> list[tuple[int, Correction]]:
    """The corrections (with their place in the list) that reach no clause at all."""
    depths = _depths(clauses)
    return [(i, c) for i, c in enumerate(corrections) if not _reach(clauses, c, depths)]


def near(clauses: Sequence[Clause], correction: Correction, n: int = 5) -> list[str]:
    """Ids (or, for a title, titles) that resemble what an unmatched correction names."""
    name, value = correction.target
    if name == "title":
        titles = list(dict.fromkeys(c.title for c in clauses if c.title))
        folded = {_fold(t): t for t in titles}
        return [folded[t] for t in difflib.get_close_matches(_fold(value), list(folded), n, 0.6)]
    ids = [c.id for c in clauses]
    found = difflib.get_close_matches(value, ids, n, 0.6)
    if name == "prefix":
        # A prefix resembles the start of an id more than a whole one: compare like with like.
        starts = {c[: len(value)]: c for c in ids}
        found += [starts[s] for s in difflib.get_close_matches(value, list(starts), n, 0.6)]
    return list(dict.fromkeys(found))[:n]


def corrections_sha256(corrections: Iterable[Correction]) -> str | None:
    """SHA-256 of the corrections' canonical JSON (sorted keys, no whitespace); None for none.

    Recorded beside the policy PDF's own hash, so a decision names the kinds it stood on."""
    items = [c.model_dump(mode="json", exclude_none=True) for c in corrections]
    if not items:
        return None
    text = json.dumps(items, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

"""Running stale decisions again under the current state, through the normal pipeline.

Each claim is decided again by the claim routine (routine.decide_again: the same lease, review
and RunContext as `run`), from what the store kept (kept_claim): the claim file's newest version
taken in, its attachments' text of record, and their originals as intake kept them, checked by
their SHA-256. The inbox is never read again; a changed claim file is reviewed once `ingest` has
taken it in. The result is compared with the decision in force:

- the same outcome and answer: a replay, recorded as a `revalidated` entry; nothing else moves;
- anything else: a new decision under a changed state, naming what changed. On a claim a person
  decided, the new outcome is not applied: the claim goes back to the review queue as an
  escalation that says what the person decided and what the rules now say (`reopened`).

A claim whose review fails keeps its decision; the failed attempt is recorded like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from typing import Any

from claims_crew.claim_files import LoadedClaim
from claims_crew.documents.kept import kept_bytes
from claims_crew.errors import NotFound, StoreError
from claims_crew.records import ClaimRecord
from claims_crew.resolver import Resolution
from claims_crew.run.context import RunContext
from claims_crew.run.routine import ReviewFailed, decide_again, for_a_person, said
from claims_crew.run.stale import Project, stale_reasons
from claims_crew.store import Standing, Store
from claims_crew.vocabulary import RevalidationVerdict, StaleReason


@dataclass(frozen=True)
class Outcome:
    """What revalidating one claim did."""

    claim_id: str
    changed: list[StaleReason]
    before: tuple[str, str | None]  # the rules' outcome and answer in force
    # On a claim a person decided, their decision in force: (reviewer, decision, decided at).
    person: tuple[str, str, str] | None = None
    after: tuple[str, str | None] | None = None
    verdict: RevalidationVerdict | None = None
    reopened: bool = False
    audit_seq: int | None = None
    error: str | None = None

    def before_shown(self) -> str:
        """The decision in force, as people read it: the person's where a person decided."""
        if self.person is not None:
            reviewer, decision, _ = self.person
            return f"{decision} (decided by {reviewer})"
        return " ".join(v for v in self.before if v)

    def as_json(self) -> dict[str, Any]:
        person = None
        if self.person is not None:
            reviewer, decision, decided_at = self.person
            person = {"reviewer": reviewer, "decision": decision, "decided_at": decided_at}
        return {
            "claim_id": self.claim_id,
            "verdict": self.verdict,
            "changed": self.changed,
            "before": {"outcome": self.before[0], "answer": self.before[1]},
            "person": person,
            "after": ({"outcome": self.after[0], "answer": self.after[1]} if self.after else None),
            "back_to_queue": self.reopened,
            "audit_seq": self.audit_seq,
            "error": self.error,
        }


def reopened(resolution: Resolution, standing: Standing, changed: list[StaleReason]) -> Resolution:
    """A new outcome on a claim a person decided, under a changed state, back to the queue."""
    assert standing.human is not None
    reviewer, decision, decided_at = standing.human
    now, what = said(resolution), ", ".join(changed) or "nothing recorded"
    return for_a_person(
        resolution,
        f"{reviewer} decided {decision} on {decided_at}; under a changed state "
        f"({what}) the rules now say {now}. A person decides again.",
        f"{reviewer} decided {decision}; the rules now say {now} ({what} changed). "
        "Does the decision stand?",
    )


def revalidate(
    settings: RunContext, now: datetime, claim_ids: list[str] | None = None
) -> list[Outcome]:
    """Revalidate `claim_ids`, or every stale decision when none are given."""
    project = Project(settings.library, settings.config_sha256)
    standings = settings.store.standings(claim_ids or None)
    if claim_ids:
        missing = sorted(set(claim_ids) - {s.claim_id for s in standings})
        if missing:
            raise NotFound(f"no decision for {', '.join(missing)}")
    results = []
    for standing in standings:
        why = stale_reasons(standing, project, now)
        if claim_ids or why:
            results.append(_one(settings, standing, list(why)))
    return results


def _one(settings: RunContext, standing: Standing, changed: list[StaleReason]) -> Outcome:
    before = (standing.outcome, standing.answer)
    result = Outcome(standing.claim_id, changed, before, standing.human)
    try:
        loaded = kept_claim(settings.store, standing)
        record_new = partial(_recorded, settings, standing, loaded, result)
        return decide_again(settings, loaded, record_new)
    except (StoreError, ReviewFailed) as exc:  # the decision in force stands
        return _failed(result, str(exc))


def _recorded(
    settings: RunContext,
    standing: Standing,
    loaded: LoadedClaim,
    result: Outcome,
    record: ClaimRecord,
    resolution: Resolution,
) -> Outcome:
    """The claim's review again recorded as a replay or a new decision (back to the queue where
    a person decided it), under its lease."""
    changed = result.changed
    if record.models and standing.models and record.models != standing.models:
        changed = [*changed, "models"]
    result = replace(result, changed=changed)
    after = (resolution.outcome, resolution.answer)
    verdict: RevalidationVerdict = "replay" if after == result.before else "new"
    back = verdict == "new" and standing.human is not None
    if back:
        record = record.model_copy(update={"resolution": reopened(resolution, standing, changed)})
    try:
        basis = settings.basis(record, loaded)
        done = settings.store.record_revalidation(
            record, loaded, basis, verdict, changed, standing.entry_seq
        )
    except StoreError as exc:
        return _failed(result, str(exc))
    return replace(result, after=after, verdict=verdict, reopened=back, audit_seq=done.audit_seq)


def kept_claim(store: Store, standing: Standing) -> LoadedClaim:
    """The claim as the store kept it, to be reviewed again: the newest version of its file
    taken in since the decision (ingest flags it as changed after the decision), else the one
    the decision stands on; with its attachments' text of record, and each original intake
    kept checked by its SHA-256 (KeptFileError if gone or changed). No inbox path is opened."""
    newer = store.changed_after_decision(standing.claim_id)
    sha = max(newer, key=lambda c: c.seen_at).sha256 if newer else standing.claim_sha256
    loaded = store.loaded(standing.claim_id, sha)
    if loaded is None:
        raise StoreError(
            "the store keeps no text of record for its claim file; take the file in again "
            "(claims-crew ingest) to revalidate it"
        )
    for record in loaded.documents.values():
        kept_bytes(record)
    return loaded


def _failed(result: Outcome, error: str) -> Outcome:
    return replace(result, error=error)

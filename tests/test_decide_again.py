"""Deciding a decided claim again (run/routine.decide_again), the step an appeal and a revalidation
share: under the claim's lease, held as a run holds it; a failed review kept as an attempt and
nothing decided; another process's lease refused before any review. On SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from claims_crew.claim_files import LoadedClaim
from claims_crew.errors import StoreError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord, RunError
from claims_crew.resolver import Resolution
from claims_crew.run import routine
from claims_crew.run.context import RunContext, build_context
from claims_crew.run.crew_review import record_head
from claims_crew.run.routine import Lease, ReviewFailed, decide_again
from claims_crew.store import Store, lease_holder
from claims_crew.store.leases import LEASE_SECONDS
from claims_crew.vocabulary import utc_now
from tests.support.crew import water_script
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def settings(sample_library: PolicyLibrary) -> RunContext:
    config = ROOT / "config"
    return build_context(sample_library, water_script(), config, Store())


@pytest.fixture
def loaded(tmp_path: Path) -> LoadedClaim:
    """A decided claim as the store would give it back (here read straight from its file)."""
    return water_loaded(tmp_path, "C-1")


def reviewed_as(monkeypatch: pytest.MonkeyPatch, record: ClaimRecord) -> list[bool]:
    """The review gives `record`; what its lease check said before the (absent) model calls."""
    asked: list[bool] = []

    def review(loaded: LoadedClaim, settings: RunContext, held: Any = None) -> ClaimRecord:
        asked.append(held())
        return record

    monkeypatch.setattr(routine, "review_in_time", review)
    return asked


@pytest.fixture
def asked(
    monkeypatch: pytest.MonkeyPatch, loaded: LoadedClaim, sample_library: PolicyLibrary
) -> list[bool]:
    """The claim reviewed as the real resolver decides it (reviewed_as)."""
    return reviewed_as(monkeypatch, record_for(loaded, sample_library))


def failed_record(loaded: LoadedClaim) -> ClaimRecord:
    return ClaimRecord(
        **record_head(loaded, utc_now()),
        status="failed",
        finished_at=utc_now(),
        error=RunError(code="timeout", message="no result within 1 s"),
    )


def taken(claim_id: str) -> bool:
    """Whether another process holds the claim's lease now."""
    other, holder = Store(), lease_holder()
    if other.lease(claim_id, holder):
        other.release(claim_id, holder)
        return False
    return True


def test_a_lease_nobody_renews_outlasts_the_claims_deadline(settings: RunContext) -> None:
    for deadline, seconds in ((None, LEASE_SECONDS), (60.0, LEASE_SECONDS), (7200.0, 7260.0)):
        limits = dataclasses.replace(settings.limits, claim_deadline_s=deadline)
        lease = Lease.past_deadline(dataclasses.replace(settings, limits=limits))
        assert lease.seconds == seconds and lease.taken is None


def test_the_new_decision_is_recorded_under_the_lease_then_the_lease_is_released(
    settings: RunContext, loaded: LoadedClaim, asked: list[bool]
) -> None:
    seen: list[tuple[str, bool]] = []

    def record_new(record: ClaimRecord, resolution: Resolution) -> str:
        seen.append((resolution.outcome, taken("C-1")))
        return "recorded"

    assert decide_again(settings, loaded, record_new) == "recorded"
    assert asked == [True]  # the review's model calls were asked of the lease
    assert len(seen) == 1 and seen[0][1]  # recorded while the lease was held
    assert not taken("C-1")


def test_a_failed_review_is_kept_as_an_attempt_and_decides_nothing(
    settings: RunContext, loaded: LoadedClaim, monkeypatch: pytest.MonkeyPatch
) -> None:
    reviewed_as(monkeypatch, failed_record(loaded))

    def record_new(record: ClaimRecord, resolution: Resolution) -> None:
        raise AssertionError("a failed review records no decision")

    with pytest.raises(ReviewFailed, match=r"^the review failed: no result within 1 s$"):
        decide_again(settings, loaded, record_new)
    attempts = settings.store.attempts("C-1")
    assert [(a.status, a.error and a.error.code) for a in attempts] == [("failed", "timeout")]
    assert not settings.store.decided("C-1")
    assert not taken("C-1")


def test_a_claim_another_process_holds_is_not_reviewed(
    settings: RunContext, loaded: LoadedClaim, asked: list[bool]
) -> None:
    holder = lease_holder()
    assert Store().lease("C-1", holder)

    with pytest.raises(StoreError, match=r"^being reviewed by another process$"):
        decide_again(settings, loaded, lambda record, resolution: None)
    assert asked == []
    assert settings.store.attempts("C-1") == []
    assert settings.store.holds("C-1", holder)  # still the other's

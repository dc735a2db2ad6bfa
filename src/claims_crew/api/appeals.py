"""The appeals this process runs off the request, so their claims read under_review meanwhile."""

from __future__ import annotations

import threading

from claims_crew.api.problems import ApiProblem
from claims_crew.store import ClaimStatus, Store


class Appeals:
    """The appeals this process is running, so their claims read under_review meanwhile."""

    def __init__(self) -> None:
        self._running: set[str] = set()
        self._lock = threading.Lock()

    def start(self, claim_id: str) -> bool:
        with self._lock:
            if claim_id in self._running:
                return False
            self._running.add(claim_id)
            return True

    def done(self, claim_id: str) -> None:
        with self._lock:
            self._running.discard(claim_id)

    def running(self, claim_id: str) -> bool:
        with self._lock:
            return claim_id in self._running


def status_now(store: Store, appeals: Appeals, claim_id: str) -> ClaimStatus:
    status = store.claim_state(claim_id)
    if status is None:
        raise ApiProblem(404, "not_found", f"no claim {claim_id!r} in the store")
    if appeals.running(claim_id):
        return ClaimStatus(claim_id, "under_review", status.submitted_at, status.sha256)
    return status

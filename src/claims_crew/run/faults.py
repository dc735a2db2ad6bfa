"""An error inside one claim's review is that claim's failure, never its process's.

Whatever a claim brings out (a date whose deadline is no date, a stored file that no longer
validates, a bug met by this claim only) is recorded as the claim's failed attempt with code
`review_failed` (vocabulary.py), its traceback in the claim's log (claim_log.py), and the run or
worker goes on with the next claim. A claim that fails so with a fault of its own
(vocabulary.CLAIM_FAULTS) is counted, and parked once it failed CLAIMS_CREW_MAX_FAILURES times
(store/failures.py), so it cannot make every worker that takes it pay for its model calls again.

What stays the process's: claims-crew's own errors (a config or audit key every claim would
meet, the database gone for longer than it is waited for) and a lost database, which no claim
causes and which ends the run or worker with its one line, as before.
"""

from __future__ import annotations

import logging
from typing import Any

from claims_crew.claim_files import LoadedClaim
from claims_crew.errors import ClaimsCrewError, first_line
from claims_crew.llms.providers.errors import failure_message
from claims_crew.records import ClaimRecord, RunError
from claims_crew.run.claim_log import capturing, log_path
from claims_crew.run.crew_review import record_head
from claims_crew.run.ingest import StoredClaim
from claims_crew.store.outage import lost_database
from claims_crew.vocabulary import REVIEW_FAILED, utc_now

logger = logging.getLogger(__name__)


def the_process_s(exc: BaseException) -> bool:
    """An error no claim causes and every claim would meet: it ends the run or the worker."""
    return isinstance(exc, ClaimsCrewError) or lost_database(exc)


def fault_record(
    claim: StoredClaim,
    exc: BaseException,
    loaded: LoadedClaim | None,
    reviewed: ClaimRecord | None,
) -> ClaimRecord:
    """The claim's failed attempt for `exc`, its traceback written to the claim's log. `loaded`
    is the stored claim where it could be read; `reviewed` the review's own record where it got
    that far: its model calls were made (and may be billed), so they are kept."""
    with capturing(claim.claim_id):
        logger.error("%s: the review failed", claim.claim_id, exc_info=exc)
    if loaded is not None:
        head = record_head(loaded, utc_now())
    else:  # the stored claim itself could not be read: what the queue knows of it
        head = {
            "claim_id": claim.claim_id,
            "claim_file": str(claim.path),
            "claim_sha256": claim.sha256,
            "policy_id": "",
            "started_at": utc_now(),
        }
    used: dict[str, Any] = {}
    if reviewed is not None:
        used = {
            "started_at": reviewed.started_at,
            "models": reviewed.models,
            "model_calls": reviewed.model_calls,
            "tokens": reviewed.tokens,
            "tokens_by_task": reviewed.tokens_by_task,
            "stages": reviewed.stages,
        }
    message = f"{failure_message(exc)} (its traceback: {log_path(claim.claim_id)})"
    return ClaimRecord(
        **{**head, **used},
        status="failed",
        finished_at=utc_now(),
        error=RunError(code=REVIEW_FAILED, message=message),
    )


def failure_reason(record: ClaimRecord) -> str:
    """What a parked claim keeps of one failure: its code and the first line of its message."""
    assert record.error is not None
    return f"{record.error.code}: {first_line(record.error.message)}"

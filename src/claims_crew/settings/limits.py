"""How long the models may take: one call, its retries, and one claim as a whole.

A provider that stops answering must not hold a run. The client of a remote model gives up on a
call after CLAIMS_CREW_MODEL_TIMEOUT seconds and retries it at most CLAIMS_CREW_MODEL_RETRIES
times, waiting longer each time (and as long as a 429's Retry-After asks). Whatever the
provider does, a claim with no result CLAIMS_CREW_CLAIM_DEADLINE seconds after its review began
is recorded as failed with code `timeout`; the batch goes on, and the next run retries it.

CLAIMS_CREW_MAX_RPM caps the model calls of the whole run, all claims and agents together, at so
many in any minute (llms/rate_limit.py); unset or 0, there is no cap. The retries of a call
refused with 429 (the client's, within each of CrewAI's own three attempts) are that same call
to the cap: they wait as the 429's Retry-After asks, and a claim whose call is still refused
after them fails with code `rate_limited`, for the next run to retry.

CLAIMS_CREW_WORKERS (or `claims-crew run --workers N`) reviews a run's claims in N processes
instead of one (processes.py): CrewAI's own Python work holds one interpreter lock per
process, which caps how many claims one process keeps moving. On a PostgreSQL store the cap is
counted in the store, once for every process on it (llms/rate_limit.SharedRateLimit); on
SQLite it is per process, so each worker of a run gets an equal share of it (`rpm_share`).
CLAIMS_CREW_MAX_TPM caps the tokens the same way, beside it: a call starts only while the
prompt plus completion tokens of the calls that finished in the last minute are under it
(llms/rate_limit.py), counted with the requests, in the store or per process.
CLAIMS_CREW_RATE_WINDOW (seconds, default 60) is the cap's window, for tests that check the
cap without waiting minutes.

CLAIMS_CREW_MAX_FAILURES (default 3) is how many times a claim's review may fail with a fault
of its own (vocabulary.CLAIM_FAULTS: `review_failed`) before the claim is parked
as `failed`: no run and no worker takes it again until a person re-queues it (`claims-crew
requeue ID`). One claim that breaks its review every time then costs at most so many reviews'
model calls, instead of one per run or per worker for ever.

Declared with every other setting (declarations.py); `Limits` is their view for the routine
and the models, built from the effective settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from claims_crew.settings.declarations import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_MAX_FAILURES,
    DEFAULT_RATE_WINDOW_S,
    DEFAULT_RETRIES,
)
from claims_crew.settings.loading import current

# A claim makes five or six model calls; ten minutes is far beyond a healthy provider's time.
DEFAULT_CLAIM_DEADLINE_S = 600.0
# With no MODEL set the agents run on the in-process local model, which cannot go silent but
# takes minutes a claim on two busy cores: a provider's deadline would fail claims that are only
# slow. An hour still ends a claim whose agent names a remote model of its own in agents.yaml.
LOCAL_CLAIM_DEADLINE_S = 3600.0


@dataclass(frozen=True)
class Limits:
    """Per model call, per claim, per run. `claim_deadline_s` None means no deadline;
    `max_rpm` None means no cap on the run's model calls."""

    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    claim_deadline_s: float | None = DEFAULT_CLAIM_DEADLINE_S
    max_rpm: int | None = None
    # The tokens (prompt plus completion) of the calls that finished in a window; None: no cap.
    max_tpm: int | None = None
    # The cap's window: a minute. Tests shrink it (CLAIMS_CREW_RATE_WINDOW) to check the cap
    # without waiting minutes.
    rate_window_s: float = DEFAULT_RATE_WINDOW_S
    # Failed reviews with a fault of the claim's own before it is parked (CLAIM_FAULTS).
    max_failures: int = DEFAULT_MAX_FAILURES

    @property
    def rate_margin_s(self) -> float:
        """How long past the window a call keeps its place under the cap: long enough for the
        spread between taking a place and reaching the provider (hundredths of a second at the
        wire; up to about a second from the pre-call hook on a busy machine), short beside the
        window (llms/rate_limit.py says why)."""
        return min(2.0, self.rate_window_s / 20)

    @classmethod
    def from_environment(cls) -> Limits:
        """The limits the effective settings give (the environment's, else the file's)."""
        found = current()
        remote = bool(found.model or found.adjudicator_model)
        deadline = found.claims_crew_claim_deadline
        if deadline is None:
            deadline = DEFAULT_CLAIM_DEADLINE_S if remote else LOCAL_CLAIM_DEADLINE_S
        return cls(
            call_timeout_s=found.claims_crew_model_timeout,
            retries=found.claims_crew_model_retries,
            claim_deadline_s=deadline or None,  # 0: the user turned the deadline off
            max_rpm=found.claims_crew_max_rpm or None,
            max_tpm=found.claims_crew_max_tpm or None,
            rate_window_s=found.claims_crew_rate_window,
            max_failures=found.claims_crew_max_failures,
        )


def workers_from_environment() -> int:
    """CLAIMS_CREW_WORKERS: how many processes review a run's claims; unset, one (in-process)."""
    return int(current().claims_crew_workers)


def rpm_share(max_rpm: int | None, workers: int) -> int | None:
    """Each worker's part of a run-wide cap: an equal share, rounded down, so that the workers
    together stay under the cap; at least one call a window each, so a cap below the number of
    workers lets through one call per worker (None: no cap)."""
    if max_rpm is None:
        return None
    return max(1, max_rpm // max(1, workers))

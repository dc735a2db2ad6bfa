"""A run's worker process that SIGKILLs itself as it begins reviewing one claim.

`python -m tests.support.killed_worker STORE CONFIG CONCURRENCY` is claims_crew.worker, except that
the worker reviewing the claim named by KILLED_WORKER_AT dies at the start of that claim's review:
its lease taken, nothing of the claim recorded. The worker tests put it in place of the worker
module (worker_pool.WORKER_MODULE) to show what a run with a dead worker leaves behind.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from claims_crew import pipeline, worker


def main() -> None:
    kill_at = os.environ["KILLED_WORKER_AT"]
    review = pipeline.review_in_time

    def killed_review(loaded: Any, settings: Any) -> Any:
        if loaded.claim.claim_id == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return review(loaded, settings)

    pipeline.review_in_time = killed_review  # type: ignore[assignment]
    worker.main()


if __name__ == "__main__":
    main()

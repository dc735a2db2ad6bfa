"""A run's worker process that SIGKILLs itself as it begins reviewing one claim.

`python -m tests.support.killed_worker STORE CONFIG CONCURRENCY` is claims_crew.run.work_process,
except that the first worker to begin reviewing the claim named by KILLED_WORKER_AT dies there:
its leases held, nothing of the claim recorded. Only the first: it claims the file named by
KILLED_WORKER_MARK, which exists once, so a worker that takes the claim afterwards reviews it.
The worker tests put it in place of the worker module (processes.WORKER_MODULE) to show what a
run with a dead worker leaves behind.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from claims_crew.run import routine, work_process


def _first_to_arrive(mark: str) -> bool:
    try:
        os.close(os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def main() -> None:
    kill_at, mark = os.environ["KILLED_WORKER_AT"], os.environ["KILLED_WORKER_MARK"]
    review = routine.review_in_time

    def killed_review(loaded: Any, settings: Any, *rest: Any) -> Any:
        if loaded.claim.claim_id == kill_at and _first_to_arrive(mark):
            os.kill(os.getpid(), signal.SIGKILL)
        return review(loaded, settings, *rest)

    routine.review_in_time = killed_review  # type: ignore[assignment]
    work_process.main()


if __name__ == "__main__":
    main()

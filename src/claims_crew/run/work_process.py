"""One worker process of a run in several: `python -m claims_crew.run.work_process STORE CONFIG
CONCURRENCY`.

A `claims-crew work --until-empty` worker (worker.py) on the store CLAIMS_CREW_DATABASE_URL
names, which processes.py sets to the parent's (an SQLite file or PostgreSQL); STORE is that
store as shown to people. It reports what it does on its stdout, one JSON object a line:

    {"started": PATH}
    {"finished": PATH, "claim_id": ID or null, "busy": bool, "error": TEXT or null,
     "code": CODE or null}
    {"stopped": REASON}   (last, when a provider refusal stopped it early: batch_stop.py)

The records themselves are not sent: each is in the store once `finished` is written, and the
parent reads it from there. Anything else the process prints (CrewAI's own output included)
goes to stderr, so that stdout carries only these lines; the store's notices (the database
gone and back) are `notice:` lines there, as in the parent. It exits 0 when the queue ran empty,
whatever became of each claim; anything else means it died. One of claims-crew's own errors
(the database lost for longer than CLAIMS_CREW_DATABASE_WAIT) ends it with that error's one
line on stderr and status 1.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # CrewAI is imported only once the environment it reads is set (main)
    from claims_crew.run.routine import BatchItem


def started_event(path: Path) -> dict[str, Any]:
    return {"started": str(path)}


def finished_event(item: BatchItem) -> dict[str, Any]:
    return {
        "finished": str(item.path),
        "claim_id": item.record.claim_id if item.record is not None else None,
        "busy": item.busy,
        "error": item.error,
        "code": item.code,
    }


def _events_out() -> IO[str]:
    """Stdout, kept for the events alone; the process's own stdout goes to stderr from now on."""
    events = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", buffering=1)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return events


def main(argv: list[str] | None = None) -> None:
    from claims_crew.errors import ClaimsCrewError
    from claims_crew.run.collector import end_without_final_collection

    end_without_final_collection()  # first: it runs after the exit handlers of what comes next
    try:
        _work(*(argv or sys.argv[1:]))
    except ClaimsCrewError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


def _work(_store_shown: str, config_dir: str, concurrency: str) -> None:
    from claims_crew.settings import current, keep_crewai_at_home

    events = _events_out()
    keep_crewai_at_home()

    from claims_crew.notices import show_notices

    show_notices()  # plain `notice: …` lines on stderr, as the parent prints them in a pipe

    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.run.context import build_context
    from claims_crew.run.deadline import abandoned_work
    from claims_crew.run.worker import Worker
    from claims_crew.store import Store

    # As in a one-process run: CrewAI warns on every call to a model it has no tokenizer for.
    logging.getLogger("crewai.llms.base_llm").setLevel(logging.ERROR)
    settings = build_context(
        library=PolicyLibrary(),
        llm_for=default_llm_factory(Path(config_dir)),
        config_dir=Path(config_dir),
        store=Store(url=current().claims_crew_database_url),  # set by processes.py
    )

    lock = threading.Lock()  # the worker's threads report at once; one line at a time

    def send(event: dict[str, Any]) -> None:
        with lock:
            events.write(json.dumps(event) + "\n")  # line-buffered: the parent sees it now

    Worker(
        settings,
        int(concurrency),
        until_empty=True,
        on_start=lambda path: send(started_event(path)),
        on_done=lambda item: send(finished_event(item)),
    ).run()
    if settings.batch_stop.is_set():  # the parent says why the run stopped, as one process would
        send({"stopped": settings.batch_stop.reason})
    events.close()
    if abandoned_work():  # a call past its claim's deadline: nothing of it can be written now
        sys.stderr.flush()
        os._exit(0)


if __name__ == "__main__":
    main()

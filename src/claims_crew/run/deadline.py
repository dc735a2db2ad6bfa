"""Waiting for work until a deadline, in a thread the caller can walk away from.

CrewAI runs a crew in the calling thread, and a model call blocked on a silent provider cannot
be interrupted. So a claim's review runs in a daemon thread of its own, and the batch waits for
it until the claim's deadline, then moves on. What the abandoned work returns afterwards is
dropped here: the caller gets only a result handed over in time, so a claim past its deadline
can never write a record or a decision. The work is told, through `stop`, that nobody waits
for it any more (the claim's model calls are then refused: llms/cutoff.py).

A call already sent stays open until the provider or the call's timeout ends it, and CrewAI
makes it from a worker thread that Python waits for before a process exits. `abandoned_work`
tells a command that it is done but such a call is still open, so that it can exit now.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class _Handoff(Generic[T]):
    """The work's outcome, taken by the waiting side at most once."""

    done: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    closed: bool = False
    result: T | None = None
    error: BaseException | None = None

    def give(self, result: T | None, error: BaseException | None) -> None:
        with self.lock:
            if not self.closed:  # past the deadline nobody takes it, and it is dropped
                self.result, self.error = result, error
                self.done.set()


class _Worker(threading.Thread):
    """A thread running work under a deadline; `abandoned` once nobody waits for it."""

    abandoned = False


def abandoned_work() -> list[threading.Thread]:
    """Work given up on at its deadline that has not ended yet (in this process)."""
    return [t for t in threading.enumerate() if isinstance(t, _Worker) and t.abandoned]


def run_within(
    seconds: float | None, work: Callable[[threading.Event], T], name: str = "deadline"
) -> T | None:
    """`work(stop)`'s result if it comes within `seconds` (None: wait as long as it takes),
    else None, with `stop` set. An exception the work raises in time is raised here."""
    stop = threading.Event()
    if seconds is None:
        return work(stop)
    handoff: _Handoff[T] = _Handoff()
    context = contextvars.copy_context()  # the work sees what the caller's thread would

    def run() -> None:
        try:
            result = context.run(work, stop)
        except BaseException as exc:  # handed to the waiting side, or dropped with the claim
            handoff.give(None, exc)
        else:
            handoff.give(result, None)

    worker = _Worker(target=run, name=name, daemon=True)
    worker.start()
    handoff.done.wait(seconds)
    with handoff.lock:
        handoff.closed = True
        if not handoff.done.is_set():
            worker.abandoned = True
            stop.set()
            return None
    if handoff.error is not None:
        raise handoff.error
    return handoff.result

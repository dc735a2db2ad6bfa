"""The main thread's waits, cut into slices so that SIGTERM and Ctrl-C are always heard.

CPython runs a signal's Python handler in the main thread, between instructions. The kernel may
hand the signal to another thread, or it may arrive while the main thread waits for the
interpreter lock just before it goes to sleep on another lock. Either way nothing wakes the main
thread: the handler runs only once the lock it sleeps on is released. A run waiting on a claim
whose provider never answers would then not stop (cli/stopping.py) until the claim's deadline,
and a queue worker would not stop at all (cli/work.py). So every wait of the main thread for the
run's threads is a loop of waits of at most SLICE_S; between two, a pending handler runs.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")

SLICE_S = 0.25  # a stop is heard within this; a slice costs the idle main thread nothing


def as_completed(futures: Iterable[Future[T]]) -> Iterator[Future[T]]:
    """The futures as they finish, as concurrent.futures.as_completed gives them."""
    pending = set(futures)
    while pending:
        try:
            for future in concurrent.futures.as_completed(pending, timeout=SLICE_S):
                pending.discard(future)
                yield future
        except TimeoutError:  # a slice ended with futures still running: wait again
            continue


def result(future: Future[T]) -> T:
    """The future's result, or its exception raised, once it has finished."""
    while True:
        try:
            return future.result(timeout=SLICE_S)
        except TimeoutError:
            if future.done():  # finished since, or its own TimeoutError: the answer is in it
                return future.result()


def join(thread: threading.Thread) -> None:
    """Return once `thread` has ended."""
    while thread.is_alive():
        thread.join(SLICE_S)

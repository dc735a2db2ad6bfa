"""The main thread hears a signal while it waits for the run's threads (run/awake.py).

The case that stopped a run from stopping: the kernel hands SIGTERM to a thread other than the
main one, or the main thread misses it on its way to sleep. CPython then only marks the handler
as due, and a main thread asleep on a lock never runs it. Here a signal is sent to the very thread
the main thread waits for, once the main thread sleeps, which makes that case happen every time.
The thread waited for ends by itself after GUARD_S, so a wait that does not hear the signal ends
then without it, and the test fails instead of hanging.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from types import FrameType

import pytest

from claims_crew.run import awake

GUARD_S = 60.0
# The frames of threading.py in which the main thread sleeps on a lock: Condition.wait (an
# Event's, a Future's) and Thread.join's.
SLEEPING_IN = {"wait", "_wait_for_tstate_lock"}


class Heard(Exception):
    """Raised by the test's SIGUSR1 handler, in the main thread."""


@pytest.fixture(autouse=True)
def usr1_raises() -> Iterator[None]:
    assert threading.current_thread() is threading.main_thread()  # signals are the main thread's

    def hear(_signum: int, _frame: FrameType | None) -> None:
        raise Heard

    before = signal.signal(signal.SIGUSR1, hear)
    try:
        yield
    finally:
        signal.signal(signal.SIGUSR1, before)


def main_thread_asleep() -> bool:
    frame = sys._current_frames().get(threading.main_thread().ident or 0)
    return frame is not None and frame.f_code.co_name in SLEEPING_IN


def signal_once_the_main_thread_sleeps(thread_id: Callable[[], int]) -> threading.Thread:
    """A thread that sends SIGUSR1 to thread `thread_id()` once the main thread sleeps."""

    def send() -> None:
        while not main_thread_asleep():
            time.sleep(0.01)
        time.sleep(0.1)  # from its last Python line into the lock's wait
        signal.pthread_kill(thread_id(), signal.SIGUSR1)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    return sender


def waiting_on(kind: str, work: Callable[[], None], stack: ExitStack) -> Callable[[], object]:
    """`work` started in a thread of its own, and the `kind` of awake's waits for it."""
    if kind == "join":
        thread = threading.Thread(target=work)
        thread.start()
        stack.callback(thread.join)
        return lambda: awake.join(thread)
    future = stack.enter_context(ThreadPoolExecutor(1)).submit(work)
    if kind == "as_completed":
        return lambda: list(awake.as_completed([future]))
    return lambda: awake.result(future)


@pytest.mark.parametrize("kind", ["as_completed", "result", "join"])
def test_a_wait_hears_a_signal_sent_to_the_thread_it_waits_for(kind: str) -> None:
    release, started, ended = threading.Event(), [], []

    def work() -> None:
        started.append(threading.get_ident())
        release.wait(GUARD_S)
        ended.append(True)

    with ExitStack() as stack:
        wait = waiting_on(kind, work, stack)
        stack.callback(release.set)  # first on the way out: the thread ends, then is waited for
        signal_once_the_main_thread_sleeps(lambda: started[0])
        with pytest.raises(Heard):
            wait()
        # Its own flag, not is_alive() or done(): a join cut short by a handler's exception
        # marks the thread ended.
        assert not ended


def test_what_the_waits_give_is_what_concurrent_futures_gives() -> None:
    """Results in the order the futures finish, a future's own exception (a TimeoutError
    included) raised as it is, and a thread joined once it has ended."""
    gates = [threading.Event() for _ in range(3)]

    def finish(number: int) -> int:
        gates[number].wait(GUARD_S)
        return number

    def times_out() -> None:
        raise TimeoutError("the provider's own")

    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(finish, number) for number in (2, 1, 0)]
        futures[1].add_done_callback(lambda _: gates[2].set())  # 0, then 1, then 2
        futures[2].add_done_callback(lambda _: gates[1].set())
        gates[0].set()
        assert [f.result() for f in awake.as_completed(futures)] == [0, 1, 2]
        assert awake.result(pool.submit(lambda: "answer")) == "answer"
        with pytest.raises(TimeoutError, match="the provider's own"):
            awake.result(pool.submit(times_out))
    done: Future[None] = Future()
    done.set_result(None)
    assert list(awake.as_completed([done])) == [done]
    thread = threading.Thread(target=time.sleep, args=(0.3,))
    thread.start()
    awake.join(thread)
    assert not thread.is_alive()

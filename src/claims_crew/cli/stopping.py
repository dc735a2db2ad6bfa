"""A run stopped by SIGTERM or Ctrl-C: it says so, and ends at once with 128 + the signal.

Python's own way would leave a stopped run going: Ctrl-C raises in the main thread, which then
waits for every claim already handed to the run's threads, minutes each on a local model, and
ends with a traceback; SIGTERM ends it without a word. A stopped run loses nothing by ending at
once: each claim's result is written in one transaction, a claim under review is left undecided
and free for the next run (its lease's holder is gone), and each decided claim has had its line
as it finished. With worker processes the run ends through its pool instead, which tells the
workers to stop (processes.py).

`claims-crew work` stops differently: it finishes the claims in hand first (cli/work.py).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import click
from rich.console import Console

STOPPED = (
    "{signal}: the run stopped. The claims with a line above are decided and stored; "
    "the others are left for the next run."
)


STOP_SIGNALS = (signal.SIGTERM.value, signal.SIGINT.value)


@contextmanager
def on_stop_signals(handler: Callable[[int, FrameType | None], None]) -> Iterator[dict[int, Any]]:
    """Within this block SIGTERM and SIGINT call `handler`. Yields the handlers they had before
    (a handler may put them back), and puts them back after."""
    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield previous
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)


@contextmanager
def ending_on_signals(
    console: Console, note: str = "", through_pool: bool = False
) -> Iterator[None]:
    """Within this block, SIGTERM and SIGINT end the process now, saying so (and `note`, when
    given) on stderr; with `through_pool`, by SystemExit in the main thread instead."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are the main thread's
        return

    def end(signum: int, _frame: FrameType | None) -> None:
        console.show_cursor(True)  # a terminal's bar hides it while it runs
        sys.stdout.flush()
        click.echo("\n" + STOPPED.format(signal=signal.Signals(signum).name), err=True)
        if note:
            click.echo(note, err=True)
        sys.stderr.flush()
        if through_pool:
            raise SystemExit(128 + signum)
        os._exit(128 + signum)

    with on_stop_signals(end):
        yield

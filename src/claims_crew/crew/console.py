"""CrewAI's own console output, off while a claim is reviewed.

Besides logging, CrewAI prints to the terminal: its event bus warns there when a call's events
do not pair up ("[CrewAIEventsBus] Warning: Event pairing mismatch…", which its providers cause
by reporting one failed call twice), and its formatter prints panels. A run shows one line per
claim instead; what went wrong is in the claim's record and its log (run/claim_log.py). The
switch is CrewAI's own (crewai_core.printer), a context variable: it holds for the claim's
thread and the threads CrewAI starts from it, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from crewai_core.printer import set_suppress_console_output, should_suppress_console_output


@contextmanager
def crewai_console_off() -> Iterator[None]:
    """Within this block, CrewAI prints nothing."""
    before = should_suppress_console_output()
    set_suppress_console_output(True)
    try:
        yield
    finally:
        set_suppress_console_output(before)

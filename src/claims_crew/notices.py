"""What the store has to tell the person at the command: not a diagnostic but news that is
theirs, such as the audit key it has just made (theirs to keep) or the database gone and back;
the local model says the same way when it must read its slower packaged weights.

The store says it with `tell`, on the `claims_crew.notices` logger, and knows nothing of who
shows it. Whoever shows it installs the one handler here, `NoticeLines`, with `show_notices`:
each notice becomes one `notice: message` line on stderr, never a raw `WARNING:name:` record.
A command (cli/notices.py) hands it a writer that colours the line in a terminal; a run's worker
process (run/work_process.py) writes plain lines, which its parent reads. Where no one has
installed it (the web app, the API, a library user) notices reach the root logger as warnings,
as any other record would.

This module imports nothing of the project, so the command line and the run's parts may both
use it without loading the store (SQLAlchemy) or the command line (click, rich).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

NOTICES = logging.getLogger("claims_crew.notices")

# Writes one whole line, the prefix included.
LineWriter = Callable[[str], None]


def tell(message: str) -> None:
    """Say `message` to whoever shows the store's notices."""
    NOTICES.warning("%s", message)


def plain_line(line: str) -> None:
    """`line` on stderr as it is now (a progress display may have redirected it)."""
    print(line, file=sys.stderr, flush=True)


class NoticeLines(logging.Handler):
    """Each notice written as one line of the process's own output: `notice: message`."""

    def __init__(self, write: LineWriter = plain_line) -> None:
        super().__init__()
        self.write = write

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.write(f"notice: {record.getMessage()}")
        except Exception:  # as logging's own handlers do: reported, never raised into the store
            self.handleError(record)


def show_notices(write: LineWriter = plain_line) -> None:
    """From now on, in this process, the store's notices are lines written by `write`; once
    only, however often it is called."""
    if not any(isinstance(handler, NoticeLines) for handler in NOTICES.handlers):
        NOTICES.addHandler(NoticeLines(write))
    NOTICES.setLevel(logging.INFO)
    NOTICES.propagate = False

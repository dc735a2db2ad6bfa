"""The store's notices (store/notices.py) as lines of the command's own output, on stderr: in a
terminal a yellow line, elsewhere one plain `notice: message` line, whole, that grep finds.

The records of the `claims_crew.notices` logger are taken here and go no further, so a run
never shows one as a raw `WARNING:claims_crew...:` log line. The logger is named here rather
than imported: importing the store would load SQLAlchemy for every command.
"""

from __future__ import annotations

import logging

from claims_crew.cli._output import is_terminal, plain_line
from claims_crew.cli.safe_text import plain

NOTICES = "claims_crew.notices"


class NoticeLines(logging.Handler):
    """Each notice printed as the command's own line."""

    def emit(self, record: logging.LogRecord) -> None:
        from rich.console import Console

        # Made for each notice: stderr is looked up now (a progress display redirects it, so
        # the line appears above the bar).
        console = Console(stderr=True)
        said = f"notice: {record.getMessage()}"
        if is_terminal(console):
            console.print(plain(said, "yellow"), soft_wrap=True)
        else:
            plain_line(console, said)


def print_notices() -> None:
    """From now on, in this process, the store's notices are printed as the command's lines."""
    logger = logging.getLogger(NOTICES)
    if not any(isinstance(handler, NoticeLines) for handler in logger.handlers):
        logger.addHandler(NoticeLines())
    logger.setLevel(logging.INFO)
    logger.propagate = False

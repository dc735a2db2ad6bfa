"""The store's notices (claims_crew/notices.py) as lines of the command's own output, on stderr:
in a terminal a yellow line, elsewhere one plain `notice: message` line, whole, that grep finds.

The one handler of notices is installed here with the command line's way of writing a line;
the run's worker processes install the same handler writing plain lines.
"""

from __future__ import annotations

from claims_crew.cli._output import is_terminal, plain_line
from claims_crew.cli.safe_text import plain
from claims_crew.notices import show_notices


def console_line(said: str) -> None:
    """One notice's line as the command prints its own."""
    from rich.console import Console

    # Made for each notice: stderr is looked up now (a progress display redirects it, so
    # the line appears above the bar).
    console = Console(stderr=True)
    if is_terminal(console):
        console.print(plain(said, "yellow"), soft_wrap=True)
    else:
        plain_line(console, said)


def print_notices() -> None:
    """From now on, in this process, the store's notices are printed as the command's lines."""
    show_notices(console_line)

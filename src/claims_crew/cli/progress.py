"""A run's progress on the console, including what it is still waiting for.

Each claim gets its line as it finishes (claim_lines.py: the decision, each agent's answer and
the time, or why it failed), in a terminal above the bar and elsewhere as a plain line, so a run
stopped halfway has still shown what it decided; the table comes at the end. The lines are
numbered "[3/9]" against the claims the run has to review (a `work` process: the claims pending
when it started), or "[3]" where that is not known: a worker that started on an empty queue,
or once the count has passed the total (others add to a worker's queue).

A claim can wait minutes on a slow provider (up to its deadline, limits.py). A bar that only
moves when a claim finishes would then look stuck, so the display names the claims under review
and for how long. In a terminal that is a column of the bar, redrawn several times a second.
Where nothing is redrawn (a pipe, a CI log, `crewai run` captured by a tool), rich shows the bar
only when it stops, so while claims are under way a line names them every HEARTBEAT_S seconds.

A run under a requests-per-minute cap (CLAIMS_CREW_MAX_RPM) may hold model calls back for most
of a minute; the display then says so first ("waiting on rate limit (60/min): 3 calls held"), so
a wait the run chose is not taken for a slow provider.

File names come from the inbox: they are printed as plain text, never as markup, with any
control characters shown as escapes (safe_text.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from claims_crew.cli._output import is_terminal, plain_line
from claims_crew.cli.claim_lines import claim_line
from claims_crew.cli.safe_text import plain

if TYPE_CHECKING:
    from claims_crew.llms.rate_limit import RateLimit
    from claims_crew.run.routine import BatchItem

HEARTBEAT_S = 30.0
SHOWN = 3  # claims named at most; the rest are counted


class InFlight:
    """The claim files under review now, and since when."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._since: dict[Path, float] = {}

    def start(self, path: Path) -> None:
        with self._lock:
            self._since[path] = self._clock()

    def finish(self, path: Path) -> None:
        with self._lock:
            self._since.pop(path, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._since)

    def describe(self) -> str:
        """ "waiting on C-2.json 41 s, C-5.json 3 s and 2 more", longest first; "" when none."""
        now = self._clock()
        with self._lock:
            waits = sorted(((now - t, p.name) for p, t in self._since.items()), reverse=True)
        if not waits:
            return ""
        named = ", ".join(f"{name} {seconds:.0f} s" for seconds, name in waits[:SHOWN])
        more = f" and {len(waits) - SHOWN} more" if len(waits) > SHOWN else ""
        return f"waiting on {named}{more}"


def held_back(rate_limit: RateLimit | None) -> str:
    """ "waiting on rate limit (60/min): 2 calls held"; "" when no call is held."""
    if rate_limit is None or not (held := rate_limit.waiting):
        return ""
    return f"waiting on rate limit ({rate_limit.label}): {held} call{'s' if held > 1 else ''} held"


def waiting(in_flight: InFlight, rate_limit: RateLimit | None = None) -> str:
    """What the run waits for now: the rate limit first, then the claims under review."""
    return "; ".join(part for part in (held_back(rate_limit), in_flight.describe()) if part)


class WaitingColumn(ProgressColumn):
    """The bar's last column: the claims under review, redrawn with the bar."""

    def __init__(self, in_flight: InFlight, rate_limit: RateLimit | None = None) -> None:
        super().__init__()
        self.in_flight = in_flight
        self.rate_limit = rate_limit

    def render(self, task: Task) -> Text:
        return plain(waiting(self.in_flight, self.rate_limit), style="dim")


class BatchProgress:
    """The bar and the claims' lines for one batch: call `started` and `finished` from any
    thread. `total` is how many claims the batch has to review, None when nobody knows."""

    def __init__(
        self,
        console: Console,
        total: int | None,
        heartbeat_s: float | None = None,
        rate_limit: RateLimit | None = None,
    ) -> None:
        self.console = console
        self.total = total
        self.in_flight = InFlight()
        self.rate_limit = rate_limit
        self.heartbeat_s = HEARTBEAT_S if heartbeat_s is None else heartbeat_s
        self._live = is_terminal(console)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            WaitingColumn(self.in_flight, rate_limit),
            console=console,
            transient=False,
        )
        self._bar = self._progress.add_task("reviewing", total=total)
        self._finished = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._heartbeat = threading.Thread(target=self._beat, name="progress", daemon=True)

    def __enter__(self) -> BatchProgress:
        self._progress.start()
        if not self._live:
            self._heartbeat.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._heartbeat.is_alive():
            self._heartbeat.join()
        self._progress.stop()

    def started(self, path: Path) -> None:
        self.in_flight.start(path)

    def finished(self, item: BatchItem) -> None:
        self.ended(item.path, claim_line(item))

    def ended(self, path: Path, line: Text) -> None:
        """`path` is done: its numbered `line` printed, the bar advanced."""
        self.in_flight.finish(path)
        with self._lock:
            self._finished += 1
            count = self._finished
            # A worker's queue may grow while it works: past the total, the total is unknown.
            if self.total is not None and count > self.total:
                self.total = None
                self._progress.update(self._bar, total=None)
            number = f"[{count}/{self.total}]" if self.total is not None else f"[{count}]"
            self._progress.advance(self._bar)
            # In a terminal, rich prints it above the bar.
            self.console.print(Text(f"{number} ").append_text(line), soft_wrap=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            if now := waiting(self.in_flight, self.rate_limit):
                plain_line(self.console, now)

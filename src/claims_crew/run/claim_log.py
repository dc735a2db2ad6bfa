"""What CrewAI and the model clients log while a claim is reviewed goes to that claim's log file.

CrewAI logs a failed model call through the root logger (`logging.error`, which on first use
also installs a handler printing to stderr), once where the request failed and once more where
the call began, and its flow runtime logs the same failure a third time. A batch whose claims
met one bad answer each printed hundreds of lines between the claims' own. The run shows one
line per claim instead (cli/claim_lines.py); the claim's record says what failed, and every
record logged during its review, WARNING and above, is appended to
CLAIMS_CREW_HOME/logs/<claim id>.log, under a header naming the attempt.

Which claim a record belongs to is a context variable set for the review (`capturing`): the
claim's thread and the threads CrewAI starts from it copy it, so claims reviewed side by side
each get their own lines. A record logged outside any claim goes to stderr as before, and so
does one from the store (a database lost, or back): that is the process's trouble, not the
claim's, and whoever runs the worker has to see it while it lasts.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from claims_crew import settings
from claims_crew.settings.redact import RedactingFilter
from claims_crew.vocabulary import utc_now

LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_path(claim_id: str) -> Path:
    """The claim's log file. A claim id is a file name already (models.ClaimFile's pattern)."""
    return settings.home() / "logs" / f"{claim_id}.log"


@dataclass
class ClaimLog:
    """One attempt at one claim: where its records go, and how many went there."""

    claim_id: str
    path: Path
    records: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, line: str) -> None:
        """Append a line now, so a review abandoned or killed has still left what it logged."""
        with self.lock:
            if not self.records:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                started = utc_now().isoformat()
                line = f"--- {started} review of {self.claim_id} (pid {os.getpid()})\n{line}"
            self.records += 1
            with self.path.open("a", encoding="utf-8") as file:
                file.write(line + "\n")


_current: ContextVar[ClaimLog | None] = ContextVar("claim_log", default=None)


class _ToClaimLog(logging.Handler):
    """Writes a record logged during a claim's review to the claim's log."""

    def emit(self, record: logging.LogRecord) -> None:
        log = _current.get()
        if log is None:
            return
        try:
            log.add(self.format(record))
        except Exception:
            self.handleError(record)


# Loggers whose records are about the whole process, wherever they were logged.
PROCESS_LOGGERS = ("claims_crew.store.",)


def for_the_terminal(record: logging.LogRecord) -> bool:
    """What was logged outside every claim's review, and what the process's own loggers say
    within one."""
    return _current.get() is None or record.name.startswith(PROCESS_LOGGERS)


_install_lock = threading.Lock()
_installed: list[logging.Handler] = []


def install() -> None:
    """Once per process: records logged during a claim to its log; the others to stderr, as
    `logging.basicConfig` (which `logging.error` calls when the root logger has no handler)
    would print them. Handlers the root logger had before are left as they are."""
    with _install_lock:
        if _installed:
            return
        root = logging.getLogger()
        to_claims = _ToClaimLog()
        to_claims.setFormatter(logging.Formatter(LINE_FORMAT))
        handlers: list[logging.Handler] = [to_claims]
        if not root.handlers:
            outside = logging.StreamHandler()
            outside.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
            outside.addFilter(for_the_terminal)
            handlers.append(outside)
        for handler in handlers:
            # A provider's error logged by its client or by CrewAI, traceback and all, may
            # quote the key it was sent (settings/redact.py): blanked before it is written.
            handler.addFilter(RedactingFilter())
            root.addHandler(handler)
        _installed.extend(handlers)


@contextmanager
def capturing(claim_id: str) -> Iterator[ClaimLog]:
    """Within this block (this thread and what it starts), what is logged goes to the claim's
    log, not the terminal."""
    install()
    log = ClaimLog(claim_id, log_path(claim_id))
    token = _current.set(log)
    try:
        yield log
    finally:
        _current.reset(token)

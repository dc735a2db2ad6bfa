"""Stopping a batch at an error that no retry and no other claim can get past.

A key the provider refuses (401), a permission it does not grant (403) or a model it does not
know (404) fails every claim the same way, each after paying for its own attempt (which errors
those are, and their codes: llms/providers/errors.py). So the first claim that meets one is
recorded as failed with a typed code, no further claim is started (by the run, or by the worker
that met it), and the claims not started stay queued, not failed: once the key or the model is
put right, the next run or worker takes them. Claims already under way when the error came
finish as they will.
"""

from __future__ import annotations

import threading


class BatchStop:
    """Set once, by the first claim that met a hopeless error; asked before each claim starts."""

    def __init__(self) -> None:
        self._set = threading.Event()
        self._lock = threading.Lock()
        self.reason = ""

    def stop(self, claim_id: str, code: str, message: str) -> None:
        self.heard(f"{claim_id} failed with {code} ({message}), which every claim would")

    def heard(self, reason: str) -> None:
        """Set with `reason` unless already set (the first stands): this process's own claim's
        (`stop`), or a worker process's as the run heard it (run/processes.py)."""
        with self._lock:
            if not self._set.is_set():
                self.reason = reason
                self._set.set()

    def is_set(self) -> bool:
        return self._set.is_set()

    def said(self, left: int) -> str:
        """What a run or worker says when it stopped early, with how many claims it left."""
        return (
            f"stopped early: {self.reason}; {left} claim(s) left queued for the next run "
            "once that is put right"
        )

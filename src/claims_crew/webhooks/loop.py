"""The webhook sender in the background: a pass about every second, in a thread of `serve`.

`claims-crew serve` starts one loop, in its own process only (not one per uvicorn worker
process: one sender per server is enough, and the store's leases would keep two from sending
the same delivery anyway), and stops it when the server stops. The loop runs even with no
endpoint configured: its passes then mark new events fanned with no delivery, so an endpoint
added later is sent only what happens after it, as Store.fan_out promises.

A pass that fails (the database gone for longer than CLAIMS_CREW_DATABASE_WAIT, a bug) is
logged and the next one tried a second later: what was not sent waits in the store.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from claims_crew.webhooks.config import load_webhooks, secrets
from claims_crew.webhooks.sender import Sender

if TYPE_CHECKING:
    from claims_crew.store import Store

INTERVAL_S = 1.0

_log = logging.getLogger(__name__)


class SenderLoop:
    """Passes of `sender` every `interval_s` seconds in a daemon thread, until stopped."""

    def __init__(self, sender: Sender, interval_s: float = INTERVAL_S) -> None:
        self.sender = sender
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="webhook-sender", daemon=True)

    def start(self) -> SenderLoop:
        self._thread.start()
        return self

    def stop(self, timeout_s: float | None = None) -> None:
        """Stop after the pass in progress, if any, and wait for it (the sender's timeout
        bounds how long one POST can take)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        self.sender.close()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sender.run_pass()
            except Exception:  # logged and tried again: the loop must outlive one bad pass
                _log.exception("a webhook pass failed; trying again in %s s", self.interval_s)
            self._stop.wait(self.interval_s)


def make_sender(store: Store, config_dir: Path | None = None) -> Sender:
    """A sender over `store`, with config/webhooks.yaml read and every secret checked now
    (a ConfigError stops the caller before anything is sent)."""
    config = load_webhooks(config_dir)
    return Sender(store, config, secrets(config))


def start_sender(store: Store, config_dir: Path | None = None) -> SenderLoop:
    """The loop over `store` (make_sender), started."""
    return SenderLoop(make_sender(store, config_dir)).start()

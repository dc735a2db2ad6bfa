"""What the store has to tell the person at the command: not a diagnostic but news that is
theirs, such as the audit key it has just made (theirs to keep) or the database gone and back.

The store says it on the `claims_crew.notices` logger and knows nothing of who shows it: the
command line (cli/notices.py) takes that logger's records and prints each as a line of its own
output, never as a raw `WARNING:name:` record. Where no one has taken them (the web app, the
API, a library user) they reach the root logger as warnings, as any other record would.
"""

from __future__ import annotations

import logging

NOTICES = logging.getLogger("claims_crew.notices")


def tell(message: str) -> None:
    """Say `message` to whoever shows the store's notices."""
    NOTICES.warning("%s", message)

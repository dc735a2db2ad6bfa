"""`crewai run` enters here (the `run_crew` script): review every new claim in claims/inbox/.

`crewai run` accepts no inputs and exits 0 even when the script fails, so the run finds the inbox
itself and exits non-zero when any claim failed. It is the same run as `claims-crew run`.
"""

from __future__ import annotations

from claims_crew.cli.run import run_inbox


def run() -> None:
    """The `run_crew` script."""
    run_inbox()

"""`crewai run` enters here (the `run_crew` script): review every new claim in claims/inbox/.

`crewai run` accepts no inputs, so the run finds the inbox itself. It is the same run as
`claims-crew run`, which exits 1 when a claim failed or the run could not start and 128 + the
signal when stopped. This script exits the same way, but `crewai run` hides it: CrewAI's CLI
(crewai_cli/run_crew.py, 1.15.x) runs `uv run run_crew`, and when that exits non-zero it prints
"An error occurred while running the crew: Command '['uv', 'run', 'run_crew']' returned
non-zero exit status 1." and exits 0 itself, whatever the script does. So a run that fails
says so in its last line, before CrewAI's, and names the command scripts should call.
"""

from __future__ import annotations

import sys

from claims_crew.cli.run import run_inbox
from claims_crew.run.collector import end_without_final_collection

CREWAI_RUN_NOTE = (
    "The run failed. `crewai run` exits 0 even so (its line below only repeats this run's exit "
    "status); scripts and CI should call `claims-crew run`, which exits non-zero."
)


def run() -> None:
    """The `run_crew` script."""
    end_without_final_collection()  # first: it runs after the exit handlers of what comes next
    try:
        run_inbox(failure_note=CREWAI_RUN_NOTE)
    except Exception:
        sys.stderr.write(CREWAI_RUN_NOTE + "\n")  # before the traceback
        raise

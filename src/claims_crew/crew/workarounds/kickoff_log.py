"""A Crew that keeps no "latest kickoff" log.

No upstream issue; CrewAI behaviour (1.15.x): every Crew keeps a TaskOutputStorageHandler in its
private `_task_output_handler`, which this replaces. (crewAI pull request #4804 made that file
safer under concurrent processes, with WAL and a longer connect timeout; it is still one file
for every crew.)

CrewAI keeps the task outputs of the latest kickoff in one SQLite file for `crewai replay`: every
Crew opens it when built, every kickoff clears it and every finished task writes to it, each time
under a file lock that a waiting thread polls every 0.25 s. Claims side by side, with a crew per
task, queued there, and each kickoff wiped the other claims' outputs anyway, so the log never
held one claim's run. A claim's run is kept in the decision store (its record, with each task's
raw answer); a claim is run again by `claims-crew run`, not by `crewai replay`.
"""

from __future__ import annotations

from typing import Any

from crewai import Crew, Task
from crewai.utilities.task_output_storage_handler import TaskOutputStorageHandler
from pydantic import PrivateAttr


class NoKickoffLog(TaskOutputStorageHandler):
    """Takes CrewAI's kickoff log writes and keeps nothing: no file, no lock."""

    def __init__(self) -> None:
        pass  # the base class would open (and lock) the SQLite file here

    def update(self, task_index: int, log: dict[str, Any]) -> None:
        pass

    def add(
        self,
        task: Task,
        output: dict[str, Any],
        task_index: int,
        inputs: dict[str, Any] | None = None,
        was_replayed: bool = False,
    ) -> None:
        pass

    def reset(self) -> None:
        pass

    def load(self) -> list[dict[str, Any]] | None:
        return None


class UnloggedCrew(Crew):
    """A Crew like any other, but for the kickoff log it does not keep."""

    _task_output_handler: TaskOutputStorageHandler = PrivateAttr(default_factory=NoKickoffLog)

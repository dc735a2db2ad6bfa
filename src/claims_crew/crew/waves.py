"""Which review tasks may run side by side: a task waits only for the tasks in its context.

CrewAI's sequential process runs the tasks in their YAML order and gives a task that has no
`context:` the outputs of every task before it. Run in waves, the same holds: a task with no
`context:` is given every earlier task as its context and so waits for all of them, while a task
that names its context waits only for those. policy_task and fraud_task both name intake_task
alone, so they form one wave after it; a fraud_task that named policy_task too would wait for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from crewai import Task

from claims_crew.errors import ConfigError


def settle_context(tasks: Sequence[Task]) -> None:
    """Give every task without a `context:` the tasks before it, as CrewAI's sequential process
    would: run in a crew of its own, it would otherwise see no earlier output at all."""
    for index, task in enumerate(tasks):
        if task.context is not None and not isinstance(task.context, list):
            task.context = list(tasks[:index])


def waves(tasks: Sequence[Task]) -> list[list[Task]]:
    """The tasks grouped into waves, in order: each wave needs only outputs of earlier waves."""
    settle_context(tasks)
    wave_of: dict[int, int] = {}
    for task in tasks:
        wave = 0
        for needed in task.context if isinstance(task.context, list) else []:
            if id(needed) not in wave_of:
                raise ConfigError(
                    f"tasks.yaml: {task.name}'s context names {needed.name}, "
                    "which does not come before it"
                )
            wave = max(wave, wave_of[id(needed)] + 1)
        wave_of[id(task)] = wave
    grouped: list[list[Task]] = [[] for _ in range(max(wave_of.values(), default=-1) + 1)]
    for task in tasks:
        grouped[wave_of[id(task)]].append(task)
    return grouped

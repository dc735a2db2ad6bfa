"""The review tasks in waves: a task waits only for the tasks in its context, and the tasks of
a wave run side by side, each in a crew of its own.

CrewAI's sequential process runs the tasks in their YAML order and gives a task that has no
`context:` the outputs of every task before it. Run in waves, the same holds: a task with no
`context:` is given every earlier task as its context and so waits for all of them, while a task
that names its context waits only for those. policy_task and fraud_task both name intake_task
alone, so they form one wave after it; a fraud_task that named policy_task too would wait for it.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from crewai import Crew, Task

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


def run_in_waves(
    tasks: Sequence[Task], crew_of: Callable[[list[Task]], Crew], inputs: dict[str, Any]
) -> None:
    """Run the tasks wave by wave, the tasks of a wave side by side, each in a crew of its own;
    the outputs land on the tasks, where the caller reads them.

    One CrewAI crew cannot do this: its sequential process waits for a pending async task
    before it starts the next synchronous one, and it may not end on two async tasks. Crews
    side by side in threads are what a batch already runs for claims side by side. Each
    thread starts from a copy of the caller's context, so the claim's model-call cutoff
    (llms/cutoff.py) holds in both. The first failure, in task order, is raised once every
    task of its wave has ended: nothing of the claim's is still running when this returns.
    """
    for wave in waves(tasks):
        if len(wave) == 1:
            crew_of(wave).kickoff(inputs=inputs)
            continue
        running = [_start(crew_of([task]), inputs) for task in wave]
        for future in running:
            future.exception()  # wait for every task of the wave, failed or not
        for future in running:
            future.result()


def _start(one: Crew, inputs: dict[str, Any]) -> Future[Any]:
    """Kick a crew off in a daemon thread, as CrewAI starts an async task: a thread blocked
    on a silent provider must not keep the process alive (deadline.py)."""
    future: Future[Any] = Future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            future.set_result(context.run(one.kickoff, inputs=inputs))
        except BaseException as exc:  # handed to the waiting side, whatever it is
            future.set_exception(exc)

    threading.Thread(target=run, name=f"crew {one.tasks[0].name}", daemon=True).start()
    return future

"""CrewAI's file store, not asked in a thread of its own while it holds no file.

No upstream issue; CrewAI behaviour (1.15.x): a crew's and a task's input files (multimodal
attachments handed to the model) live in a process-wide in-memory cache
(crewai/utilities/file_store.py, an aiocache memory cache). Its synchronous helpers run the
cache's coroutine through `_run_sync`, which, called from a running event loop (as the agent
executor's flow engine runs its steps), starts a thread with a new event loop for every
lookup. A claim makes about twenty of them (`get_all_files` before each model call,
`clear_files` and `clear_task_files` after each crew and task), and only a claim with photos
hands CrewAI a file (its intake task's, crew/images.py): for the others, six per cent of a
claim's profiled CPU went into threads and loops that looked up an empty dictionary
(docs/benchmarks.md, "Where one claim's CPU goes").

While the cache holds no entry at all, a lookup finds nothing (CrewAI's `get_all_files` then
returns None) and a clear deletes nothing, so these answer that at once; once anything is
stored, by any crew (a claim's photos, until its task clears them), every call goes to
CrewAI's own function, unchanged. `install` sets them
in each module that imported CrewAI's by name, and fails loudly where one no longer has it;
tests/test_crewai_workarounds.py checks that the cache is still an aiocache memory cache whose
entries are where this looks for them.
"""

from __future__ import annotations

import importlib
from typing import Any
from uuid import UUID

from crewai.utilities import file_store

# The functions replaced, and the CrewAI modules that call each by that name.
CALLERS: dict[str, tuple[str, ...]] = {
    "get_all_files": ("crewai.task", "crewai.crew", "crewai.agents.agent_executor"),
    "clear_files": ("crewai.crew",),
    "clear_task_files": ("crewai.task",),
}
_crewais: dict[str, Any] = {name: getattr(file_store, name) for name in CALLERS}


def holds_nothing() -> bool:
    """Whether CrewAI's file store holds no entry (a store that is not there holds none)."""
    store = file_store._file_store
    if store is None:
        return True
    entries: dict[str, object] = store._cache
    return not entries


def get_all_files(crew_id: UUID, task_id: UUID | None = None) -> dict[str, Any] | None:
    if holds_nothing():
        return None
    found: dict[str, Any] | None = _crewais["get_all_files"](crew_id, task_id)
    return found


def clear_files(execution_id: UUID) -> None:
    if not holds_nothing():
        _crewais["clear_files"](execution_id)


def clear_task_files(task_id: UUID) -> None:
    if not holds_nothing():
        _crewais["clear_task_files"](task_id)


OURS: dict[str, Any] = {
    "get_all_files": get_all_files,
    "clear_files": clear_files,
    "clear_task_files": clear_task_files,
}


def install() -> None:
    """Ours in place of CrewAI's in each module that calls them."""
    for name, modules in CALLERS.items():
        for module_name in modules:
            module = importlib.import_module(module_name)
            if getattr(module, name, None) not in (_crewais[name], OURS[name]):
                raise RuntimeError(
                    f"{module_name} no longer calls CrewAI's {name} by that name: "
                    "revisit crew/workarounds/file_store.py"
                )
            setattr(module, name, OURS[name])

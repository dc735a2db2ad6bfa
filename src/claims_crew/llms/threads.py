"""How many threads the local model (llms/local.py) computes with.

CLAIMS_CREW_LOCAL_THREADS, when set; otherwise chosen when the model loads, from the machine's
load at that moment (`choose_threads`): every core this process may use on an idle machine,
one on a busy one. The choice is made once, since the loaded model keeps it for the run.

Why both: llama.cpp's threads wait for each other at every step of every token, spinning, so
one thread kept off its core by other work holds all the others up. On a two-core machine,
bench/local_model.py measured one claim (C-1042) at 29 s with two threads and 42 s with one
when idle (load 0.3), but 417 s against 111 s with four busy loops beside it. No import here
is heavier than `os`: `config check` shows the choice without loading any model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from claims_crew.settings import current

# Below this one-minute load average the machine counts as idle. It is an absolute figure, not
# one per core: a single busy process takes a core from one of llama.cpp's threads, and that
# one thread then holds up all the others, however many cores there are. It is low on purpose,
# because the two mistakes do not cost the same: one thread on an idle two-core machine took
# 1.4 times as long as two, but two threads on a busy one took 3 to 5 times as long as one.
# The load average counts this process's own start too (its imports, a first policy index),
# so a first run that spent 40 s of CPU before the model loads sees about 0.5 and takes one
# thread; later runs, whose index is built, start in a few seconds.
IDLE_LOAD = 0.5


def choose_threads(cores: int, load: float | None) -> int:
    """Every core when the machine is idle (`load` below IDLE_LOAD), else one; half the cores
    when the load cannot be read (llama.cpp's own Python binding's choice)."""
    cores = max(1, cores)
    if load is None:
        return max(1, cores // 2)
    return cores if load < IDLE_LOAD else 1


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def machine_load() -> float | None:
    """The machine's load average over the last minute; None where the OS keeps none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has no getloadavg
        return None


@dataclass(frozen=True)
class ThreadChoice:
    """A thread count and what it came from: the setting, or the cores and load it was chosen
    from."""

    threads: int
    cores: int
    load: float | None
    by_setting: bool

    def describe(self) -> str:
        """One plain phrase, e.g. `2 threads (2 cores, load 0.31: idle)`."""
        counted = f"{self.threads} thread{'s' if self.threads != 1 else ''}"
        if self.by_setting:
            return f"{counted} (CLAIMS_CREW_LOCAL_THREADS)"
        if self.load is None:
            return f"{counted} ({self.cores} cores, load unknown: half of them)"
        state = "idle" if self.load < IDLE_LOAD else "busy"
        return f"{counted} ({self.cores} cores, load {self.load:.2f}: {state})"

    def as_json(self) -> dict[str, int | float | str | None]:
        return {
            "threads": self.threads,
            "cores": self.cores,
            "load": None if self.load is None else round(self.load, 2),
            "from": "CLAIMS_CREW_LOCAL_THREADS" if self.by_setting else "load",
        }


def local_threads(given: int | None = None) -> ThreadChoice:
    """`given`, else CLAIMS_CREW_LOCAL_THREADS, else the choice for this machine's cores and load
    now."""
    cores, load = usable_cores(), machine_load()
    if given is None and (setting := current().claims_crew_local_threads) is not None:
        given = int(setting)
    if given is not None:
        return ThreadChoice(given, cores, load, by_setting=True)
    return ThreadChoice(choose_threads(cores, load), cores, load, by_setting=False)

"""How many threads the local model (llms/local.py) computes with.

CLAIMS_CREW_LOCAL_THREADS, when set; otherwise chosen when the model loads, from the machine's
load at that moment (`choose_threads`; `machine_load`: the cores other work keeps busy over a
quarter second): every core this process may use on an idle machine, one on a busy one. The
choice is made once, since the loaded model keeps it for the run.

Why both: llama.cpp's threads wait for each other at every step of every token, spinning, so
one thread kept off its core by other work holds all the others up. On a two-core machine,
bench/local_model.py measured one claim (C-1042) at 29 s with two threads and 42 s with one
when idle (load 0.3), but 417 s against 111 s with four busy loops beside it. No import here
is heavier than `os`: `config check` shows the choice without loading any model.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from claims_crew.settings import current

# Below this many cores busy with other work, the machine counts as idle. It is an absolute
# figure, not one per core: a single busy process takes a core from one of llama.cpp's threads,
# and that one thread then holds up all the others, however many cores there are. It is low on
# purpose, because the two mistakes do not cost the same: one thread on an idle two-core machine
# took 1.4 times as long as two, but two threads on a busy one took 3 to 5 times as long as one.
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


# How long the CPU counters are watched. This process sleeps meanwhile, so the busy cores seen
# are other work's: the one-minute load average would count this process's own start (imports,
# a first policy index) and take one thread on an idle machine.
SAMPLE_SECONDS = 0.25


def machine_load() -> float | None:
    """The cores busy with other work at this moment: from Linux's CPU counters over
    SAMPLE_SECONDS, else the one-minute load average; None where the OS keeps neither."""
    try:
        first = _cpu_counters()
        time.sleep(SAMPLE_SECONDS)
        second = _cpu_counters()
    except (OSError, ValueError):
        try:
            return os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows has no getloadavg
            return None
    return busy_cores(first, second)


def load_average() -> float | None:
    """The one-minute load average as the OS reports it, unrounded; None where there is none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has no getloadavg
        return None


def _cpu_counters() -> tuple[int, ...]:
    """The machine's CPU time counters (the `cpu` line of /proc/stat, in clock ticks)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()
    if not fields or fields[0] != "cpu":
        raise ValueError("no cpu line in /proc/stat")
    return tuple(int(field) for field in fields[1:])


def busy_cores(first: tuple[int, ...], second: tuple[int, ...]) -> float:
    """How many cores were busy between two readings of /proc/stat's `cpu` line: the share of
    ticks neither idle nor waiting on I/O (its 4th and 5th counters), times the machine's
    cores (the line counts them all, whatever this process's affinity)."""
    spent = [b - a for a, b in zip(first, second, strict=False)]
    total = sum(spent[:8])  # guest time is already counted in user time
    if total <= 0:
        return 0.0
    idle = spent[3] + (spent[4] if len(spent) > 4 else 0)
    return round((total - idle) / total * (os.cpu_count() or 1), 2)


@dataclass(frozen=True)
class ThreadChoice:
    """A thread count and what it came from: the setting, or the cores and load it was chosen
    from."""

    threads: int
    cores: int
    load: float | None  # the cores busy with other work (machine_load), which chose
    by_setting: bool
    # What the OS calls the machine's load, as it reported it: printed as "load", as `uptime`
    # and `top` do, so the figure a person reads is the one they can check. The busy cores
    # above can never exceed the cores, so they are printed as what they are.
    load_average: float | None = None

    def describe(self) -> str:
        """One plain phrase, e.g. `2 threads (2 cores, 0.31 busy, load 0.57: idle)`."""
        counted = f"{self.threads} thread{'s' if self.threads != 1 else ''}"
        if self.by_setting:
            return f"{counted} (CLAIMS_CREW_LOCAL_THREADS)"
        if self.load is None:
            return f"{counted} ({self.cores} cores, load unknown: half of them)"
        state = "idle" if self.load < IDLE_LOAD else "busy"
        measured = "" if self.load_average is None else f", load {self.load_average:.2f}"
        return f"{counted} ({self.cores} cores, {self.load:.2f} busy{measured}: {state})"

    def as_json(self) -> dict[str, int | float | str | None]:
        return {
            "threads": self.threads,
            "cores": self.cores,
            "load": None if self.load is None else round(self.load, 2),
            "load_average": self.load_average,
            "from": "CLAIMS_CREW_LOCAL_THREADS" if self.by_setting else "load",
        }


def local_threads(given: int | None = None) -> ThreadChoice:
    """`given`, else CLAIMS_CREW_LOCAL_THREADS, else the choice for this machine's cores and load
    now."""
    cores = usable_cores()
    if given is None and (setting := current().claims_crew_local_threads) is not None:
        given = int(setting)
    if given is not None:  # no quarter second spent watching a load nothing will read
        return ThreadChoice(given, cores, None, by_setting=True)
    load = machine_load()
    return ThreadChoice(
        choose_threads(cores, load), cores, load, by_setting=False, load_average=load_average()
    )

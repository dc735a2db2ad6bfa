"""How a command's process ends: without the garbage collector's last pass over everything.

At exit, after the exit handlers, CPython collects every generation of the garbage collector
before it tears the modules down. A process that imported CrewAI tracks about 450,000 objects,
more after it has reviewed claims, and that last pass visits every one of them to free memory
the operating system takes back a moment later: on a two-core machine it is most of what a
command spends after its last line (bench/cli_startup.py prints the CPU a process spends with
and without it). `gc.freeze()` moves every tracked object to the collector's permanent
generation, which no collection visits.

It runs as the last exit handler: registered before CrewAI or anything of ours registers one,
and exit handlers run last registered, first run. So every other handler has closed its files,
databases, servers and child processes as usual, and objects are still freed as their last
reference goes. What is skipped is only the collection of reference cycles at exit, which
nothing here relies on: each decision, record and file is written and closed before its
command returns, and Python never promised finalizers at exit anyway.
"""

from __future__ import annotations

import atexit
import gc

_registered = False


def end_without_final_collection() -> None:
    """Have this process skip the collector's pass at exit (once, however often called)."""
    global _registered
    if not _registered:
        atexit.register(gc.freeze)
        _registered = True

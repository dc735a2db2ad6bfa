"""What the garbage collector visits in a command's process: not what it loaded to start with,
and nothing at its exit.

A process that imported CrewAI tracks about 370,000 objects before its first claim (modules,
classes, schemas), more once its first claims have filled its caches, and nearly all of them
live as long as it does. The collector's full pass, which comes every so many claims, visits
every one, under the interpreter lock every claim in the process waits on: 0.31 s after eight
claims, 0.06 s with what was loaded frozen (bench/cli_startup.py). `gc.freeze()` moves every
tracked object to the collector's permanent generation, which no collection visits. Objects are
still freed as their last reference goes; only a reference cycle among frozen objects is never
collected, so the garbage there is collected first.

- `freeze_what_is_loaded()`: called where a process starts reviewing claims (a run's batch, a
  queue worker), once. Its full passes then visit only what its claims made since.
- `end_without_final_collection()`: at exit, after the exit handlers, CPython collects every
  generation before it tears the modules down, to free memory the operating system takes back
  a moment later; on a two-core machine it was most of what a command spent after its last
  line. It is registered as an exit handler by each entry point's first line, before CrewAI
  and the commands' modules are imported, and exit handlers run last registered, first run: so
  theirs close their files, databases, servers and child processes before it, as usual, and a
  handler registered earlier still (the standard library's logging) finds the collector frozen,
  which changes nothing it does. What is skipped is only the collection of reference cycles at
  exit, which nothing here relies on: each decision, record and file is written and closed
  before its command returns, and Python never promised finalizers at exit anyway.
"""

from __future__ import annotations

import atexit
import functools
import gc


@functools.cache  # once a process
def freeze_what_is_loaded() -> None:
    """Leave what this process holds now out of every later collection, after collecting the
    garbage it holds (which would otherwise be kept for good); once a process, at its first
    call: a program that runs batch after batch freezes only what it loaded to start with."""
    gc.collect()
    gc.freeze()


@functools.cache  # once a process
def end_without_final_collection() -> None:
    """Have this process skip the collector's pass at exit (once, however often called)."""
    atexit.register(gc.freeze)

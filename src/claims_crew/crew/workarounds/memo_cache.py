"""Drop what CrewBase memoised for a crew once the crew is gone.

Works around crewAI issue #7338 ("Memoized CrewBase methods retain per-instance Agent/Task/Crew
in global cache"), seen in CrewAI 1.15.2 to 1.15.30; pull request #7341 proposes instance-scoped
caches. Drop this module once that fix is released (tests/test_crewai_workarounds.py says when).

CrewBase memoises every @agent and @task result in one process-wide CacheHandler
(crewai.project.utils.cache), keyed by the crew's id() and never dropped. Once a crew is freed,
a new crew can get its id, and with it the old claim's Agent and Task objects (the old policy's
lookup tool, the old models) instead of its own. A freed crew's id is only noted when it goes
(the collector may free it inside the cache's own lock, which is not reentrant); its entries are
dropped before the next crew memoises anything. This reads CacheHandler's private `_cache` and
`_lock`.
"""

from __future__ import annotations

import weakref
from collections import deque

from crewai.project.utils import cache as crewbase_cache

# Ids of crews freed since the last crew was made.
_freed_crews: deque[int] = deque()


def forget_freed_crews() -> None:
    """Drop the memoised entries of every crew freed since the last call."""
    freed = []
    while _freed_crews:
        freed.append(_freed_crews.popleft())
    if not freed:
        return
    markers = [f"('__instance__', {instance_id})" for instance_id in freed]
    entries = crewbase_cache._cache
    with crewbase_cache._lock.w_locked():
        for key in [k for k in entries if any(marker in k for marker in markers)]:
            del entries[key]


def track(crew: object) -> None:
    """Call from a new crew's __init__, before it memoises anything: drops what freed crews
    left behind, and notes this crew's id for the next crew to drop when this one goes."""
    forget_freed_crews()
    weakref.finalize(crew, _freed_crews.append, id(crew))

"""One cache of pydantic's parametrised generic models for all the threads of a claim.

No upstream issue; pydantic behaviour (2.11 and later, with CrewAI 1.15.x): the generic-model
cache is held per contextvars context, and CrewAI runs a crew's work in copies of the caller's
context. Uses only pydantic's public API.

Pydantic (2.11 and later) keeps the classes it makes for `Model[X]` in a cache held per
contextvars context, and makes that cache the first time a context parametrises a generic
model. A claim's CrewAI work runs in copies of the claim's context: a thread per reviewer, an
event loop per kickoff, a worker thread per step of an agent's loop. A copy made while the
claim's context has no cache yet makes one of its own, which ends with that copy. OpenAI's
client parses every structured answer into `ParsedChatCompletion[...]`, `ParsedChoice[...]` and
`ParsedChatCompletionMessage[...]`, so those three classes were declared and built again, about
9 ms of CPU under the GIL, in more than one copy per claim.

`share_generic_models()` parametrises a generic model of its own in the calling context, so the
cache exists there before CrewAI copies the context; every copy then holds that same cache, and
the classes are built once for all of them. A crew calls it for its claim; the pipeline calls it
in the thread that hands claims to the deadline's thread (pipeline.review_in_time), so the
claims that thread reviews share one cache too. The classes are the ones pydantic would build
in any case; what changes is only how many times.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel

_T = TypeVar("_T")


class _Parametrised(BaseModel, Generic[_T]):
    """Parametrised once per context; it has nothing else to do."""


def share_generic_models() -> None:
    """Make pydantic's generic-model cache in the calling context, if it has none yet."""
    _Parametrised[int]

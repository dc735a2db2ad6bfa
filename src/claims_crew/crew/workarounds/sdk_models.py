"""The provider SDKs' response classes, built before claims read answers side by side.

No upstream issue; openai and anthropic behaviour (their `DEFER_PYDANTIC_BUILD`, on by
default): every response class of the two SDKs is declared with pydantic's `defer_build`, and
builds its schema the first time it is used, through `model_rebuild`. Pydantic says that is not
thread-safe: a rebuild deletes the class's schema before it sets the new one. Two threads using
a class for the first time at once, the first claims a process reviews side by side, met there,
and one claim failed with "type object 'BaseModel' has no attribute '__pydantic_core_schema__'"
(or pydantic's "Pydantic models should inherit from BaseModel") inside the SDK's own parsing.

`complete_response_models(sdk)` builds, once per process and under a lock, the classes a chat
call reads (the completion or message, its stream's events, the structured-output variants) and
every class their fields name; which classes those are is each provider's fact
(`response_models` in llms/providers/openai.py and anthropic.py). The crew calls
`complete_loaded_sdks()` as it builds each agent, after the agent's client (and so its SDK)
exists and before the agent's first call; a thread that comes while another builds waits for
it. A built class is never rebuilt.
Building all of an SDK's thousand-odd classes at import instead (`DEFER_PYDANTIC_BUILD=false`)
would cost every command seconds.
"""

from __future__ import annotations

import importlib
import sys
import threading
import typing
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel

from claims_crew.llms.providers import PROVIDERS


def _roots() -> dict[str, dict[str, tuple[str, ...]]]:
    """Per SDK, where the classes a chat call reads are declared: module → class names, as each
    provider's module of llms/providers/ gives them (its `response_models`)."""
    roots: dict[str, dict[str, tuple[str, ...]]] = {}
    for provider in PROVIDERS:
        for module, names in provider.response_models.items():
            roots.setdefault(module.partition(".")[0], {})[module] = names
    return roots


ROOTS = _roots()

_lock = threading.Lock()
_completed: set[str] = set()


def root_classes(sdk: str) -> list[type[BaseModel]]:
    """The classes of ROOTS[sdk], imported."""
    return [
        getattr(importlib.import_module(module), name)
        for module, names in ROOTS[sdk].items()
        for name in names
    ]


def complete_response_models(sdk: str) -> None:
    """Build the chat classes of `sdk` ("openai" or "anthropic"; any other has nothing to build)
    and the classes their fields name, once per process."""
    with _lock:
        if sdk in _completed or sdk not in ROOTS:
            return
        for cls in reachable(root_classes(sdk)):
            cls.model_rebuild()
        _completed.add(sdk)


def complete_loaded_sdks() -> None:
    """complete_response_models for each SDK this process has imported (a client of it built)."""
    for sdk in ROOTS:
        if sdk in sys.modules:
            complete_response_models(sdk)


def reachable(roots: Iterable[type[BaseModel]]) -> Iterator[type[BaseModel]]:
    """The classes themselves, then every model class their fields name, each once; each is
    yielded before its fields are read, so a caller that builds it reads them resolved."""
    seen: set[type[BaseModel]] = set()
    todo = list(roots)
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        yield cls
        for field in cls.model_fields.values():
            todo.extend(_models_in(field.annotation))


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    """The model classes an annotation names: itself, or inside a list, union, Optional or
    Annotated."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _models_in(arg)

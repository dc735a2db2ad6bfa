"""The run's rate limit taken where a request goes onto the wire, not before CrewAI builds it.

A provider counts requests as they arrive. The pre-call hook (cutoff.py) runs before CrewAI
formats the messages, the tools and the answer's schema, which on a busy machine with several
claims in flight can take a second or more; two calls let through a window apart by the hook
could then reach the provider less than a window apart, and a batch let through at a window's
edge land in the same provider window as the batch before it. Four cold workers at a cap of 24
per 20 s sent 36 requests in one such window with the hook alone (bench/provider.py, 2c).

CrewAI's native OpenAI and Anthropic clients (and the OpenAI-compatible ones for Ollama and
vLLM) accept an httpx interceptor whose `on_outbound` runs for every request the SDK sends,
its own retries included. `WIRE_GATE` is that interceptor: it takes the place under the rate
limit of the claim the request is for, found in a context variable that `model_calls_until`
sets for the claim's thread and what CrewAI starts from it. CrewAI refuses an interceptor for
Gemini, but google-genai builds its httpx clients from `http_options.client_args`, so the same
wait runs there as an httpx request hook (`GEMINI_CLIENT_ARGS`). For a client with neither
(Azure's, Bedrock's, LiteLLM's) the pre-call hook still takes the place (`wire_gated`). Which
provider's client takes which is its `wire` in llms/providers/.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpx
from crewai.llms.hooks.base import BaseInterceptor

from claims_crew.llms.providers import PROVIDERS
from claims_crew.llms.rate_limit import RateLimit

# The claim's stop event and the run's rate limit, for the requests made within its block.
_GATE: ContextVar[tuple[threading.Event, RateLimit] | None] = ContextVar(
    "claims_crew_wire_gate", default=None
)


class WireGateClosed(httpx.TransportError):
    """The claim was given up while its request waited on the rate limit: nothing was sent."""


@contextmanager
def gated(stop: threading.Event, rate_limit: RateLimit | None) -> Iterator[None]:
    """Requests sent within this block wait on `rate_limit` (None: no cap) and on `stop`."""
    token = _GATE.set((stop, rate_limit) if rate_limit is not None else None)
    try:
        yield
    finally:
        _GATE.reset(token)


# The requests a provider limits apart from its messages (Anthropic's token counting, which its
# client calls before a message): their paths' ends, from llms/providers/.
_UNCOUNTED = tuple(path for p in PROVIDERS for path in p.uncounted_paths)


def _counted(request: httpx.Request) -> bool:
    """Whether the request counts under the cap: not one the provider limits on its own."""
    return not request.url.path.endswith(_UNCOUNTED)


def _take() -> None:
    gate = _GATE.get()
    if gate is None:
        return
    stop, rate_limit = gate
    if not rate_limit.acquire(stop):
        raise WireGateClosed(
            f"the claim's deadline passed while waiting on the rate limit ({rate_limit.label})"
        )


class WireGate(BaseInterceptor[httpx.Request, httpx.Response]):
    """Every outbound request takes its place under the claim's rate limit first."""

    def on_outbound(self, message: httpx.Request) -> httpx.Request:
        if not _counted(message):
            return message
        _take()
        return message

    def on_inbound(self, message: httpx.Response) -> httpx.Response:
        return message

    async def aon_outbound(self, message: httpx.Request) -> httpx.Request:
        if not _counted(message):
            return message
        # Waits in a thread, not on the event loop; to_thread carries the context over.
        await asyncio.to_thread(_take)
        return message

    async def aon_inbound(self, message: httpx.Response) -> httpx.Response:
        return message


WIRE_GATE = WireGate()


def request_hook(request: httpx.Request) -> None:
    """The same wait as an httpx event hook, for google-genai's client (called per send)."""
    if _counted(request):
        _take()


async def async_request_hook(request: httpx.Request) -> None:
    if _counted(request):
        await asyncio.to_thread(_take)


# What google-genai's HttpOptions are given so that its httpx clients call the hooks. Its async
# calls go through aiohttp where that is installed (it is, with CrewAI) and drop the httpx
# arguments; the crew calls its models synchronously (kickoff, never akickoff), so every request
# of a claim passes the sync hook, which test_wire_gate.py counts.
GEMINI_CLIENT_ARGS: dict[str, Any] = {
    "client_args": {"event_hooks": {"request": [request_hook]}},
    "async_client_args": {"event_hooks": {"request": [async_request_hook]}},
}


def wire_gated(llm: Any) -> bool:
    """Whether `llm`'s requests take their place at the wire (else the pre-call hook takes it)."""
    from crewai.llms.providers.anthropic.completion import AnthropicCompletion
    from crewai.llms.providers.openai.completion import OpenAICompletion

    if isinstance(llm, OpenAICompletion | AnthropicCompletion):
        return getattr(llm, "interceptor", None) is WIRE_GATE
    http = (getattr(llm, "client_params", None) or {}).get("http_options")
    hooks = ((http or {}).get("client_args") or {}).get("event_hooks") or {}
    return isinstance(http, dict) and request_hook in hooks.get("request", [])

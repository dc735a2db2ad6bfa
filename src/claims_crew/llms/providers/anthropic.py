"""Anthropic, through CrewAI's native client (the `anthropic` SDK, CrewAI's `anthropic` extra).

Its key is ANTHROPIC_API_KEY; `claude/` names it as well as `anthropic/`. The client takes
CrewAI's httpx interceptor (the rate limit at the wire; its token counting is not counted,
llms/wire_gate.py). A timeout ends the error chain at its own APITimeoutError, with no socket
timeout behind it. The SDK's response classes build themselves on first use, which is not safe
from two threads (crew/workarounds/sdk_models.py); its client validates native structured
output itself (verbatim_answers.py).
"""

from __future__ import annotations

from claims_crew.llms.providers.facts import Provider

ANTHROPIC = Provider(
    name="anthropic",
    prefixes=("anthropic", "claude"),
    default_endpoint="https://api.anthropic.com",
    key_variable="ANTHROPIC_API_KEY",
    model_names=("claude-", "anthropic."),
    sdk_package=("anthropic", "crewai[anthropic]"),
    wire="interceptor",
    uncounted_paths=("/count_tokens",),
    client_modules=("anthropic",),
    timeout_errors=("APITimeoutError",),
    response_models={
        "anthropic.types": (
            "Message",
            "RawMessageStartEvent",
            "RawMessageDeltaEvent",
            "RawMessageStopEvent",
            "RawContentBlockStartEvent",
            "RawContentBlockDeltaEvent",
            "RawContentBlockStopEvent",
            "MessageTokensCount",
        ),
    },
    workarounds=("sdk_models", "verbatim_answers"),
)

PROVIDERS = (ANTHROPIC,)

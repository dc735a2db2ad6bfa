"""OpenAI, through CrewAI's native client (the `openai` SDK).

Its key is OPENAI_API_KEY; a base URL (MODEL_BASE_URL, an agent's own) points the client at a
gateway or a LiteLLM proxy speaking the same wire. The client takes CrewAI's httpx interceptor,
so the rate limit is taken as each request, retries included, goes out. Its chat completions
take at most ten images a request. The SDK's response classes build themselves on first use,
which is not safe from two threads (crew/workarounds/sdk_models.py); its structured answers are
parametrised generic models (generic_models.py) and validated by the SDK's `parse`
(verbatim_answers.py).
"""

from __future__ import annotations

from claims_crew.llms.providers.facts import Provider

OPENAI = Provider(
    name="openai",
    prefixes=("openai",),
    default_endpoint="https://api.openai.com/v1",
    key_variable="OPENAI_API_KEY",
    model_names=("gpt-", "o1", "o3", "o4", "whisper-"),
    wire="interceptor",
    client_modules=("openai",),
    response_models={
        "openai.types.chat": (
            "ChatCompletion",
            "ChatCompletionChunk",
            "ParsedChatCompletion",
            "ParsedChoice",
            "ParsedChatCompletionMessage",
        ),
    },
    images_per_request=10,
    workarounds=("sdk_models", "generic_models", "verbatim_answers"),
)


def openai_compatible(
    name: str, endpoint_variable: str, default_endpoint: str, key_variable: str | None = None
) -> Provider:
    """A server that speaks OpenAI's wire, reached through CrewAI's OpenAI-compatible client
    (which takes the interceptor, as OpenAI's does): its prefix is its name, and without a base
    URL given here its endpoint is CrewAI's own variable for it, else its local default."""
    return Provider(
        name=name,
        prefixes=(name,),
        endpoint_variable=endpoint_variable,
        default_endpoint=default_endpoint,
        key_variable=key_variable,
        wire="interceptor",
    )


PROVIDERS = (OPENAI,)

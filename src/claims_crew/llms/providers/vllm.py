"""A hosted vLLM server, through CrewAI's OpenAI-compatible client: `hosted_vllm/`.

Its key is VLLM_API_KEY; the endpoint is the base URL given here, else CrewAI's own
VLLM_BASE_URL, else vLLM's default on this machine. The client takes CrewAI's httpx
interceptor, so the rate limit is taken at the wire as for OpenAI.
"""

from __future__ import annotations

from claims_crew.llms.providers.facts import Provider

HOSTED_VLLM = Provider(
    name="hosted_vllm",
    prefixes=("hosted_vllm",),
    endpoint_variable="VLLM_BASE_URL",
    default_endpoint="http://localhost:8000/v1",
    key_variable="VLLM_API_KEY",
    wire="interceptor",
)

PROVIDERS = (HOSTED_VLLM,)

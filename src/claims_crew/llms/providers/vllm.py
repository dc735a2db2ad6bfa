"""A hosted vLLM server, through CrewAI's OpenAI-compatible client: `hosted_vllm/`.

Its key is VLLM_API_KEY; the endpoint is the base URL given here, else CrewAI's own
VLLM_BASE_URL, else vLLM's default on this machine. The client takes CrewAI's httpx
interceptor, so the rate limit is taken at the wire as for OpenAI.
"""

from __future__ import annotations

from claims_crew.llms.providers.openai import openai_compatible

HOSTED_VLLM = openai_compatible(
    "hosted_vllm", "VLLM_BASE_URL", "http://localhost:8000/v1", key_variable="VLLM_API_KEY"
)

PROVIDERS = (HOSTED_VLLM,)

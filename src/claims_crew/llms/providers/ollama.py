"""Ollama, through CrewAI's OpenAI-compatible client: `ollama/` and `ollama_chat/`.

No key; the endpoint is the base URL given here, else CrewAI's own OLLAMA_HOST, else Ollama's
default on this machine. The client takes CrewAI's httpx interceptor, so the rate limit is taken
at the wire as for OpenAI. CrewAI counts `ollama_chat` as a provider of its own.
"""

from __future__ import annotations

from dataclasses import replace

from claims_crew.llms.providers.openai import openai_compatible

OLLAMA = replace(
    openai_compatible("ollama", "OLLAMA_HOST", "http://localhost:11434/v1"),
    client_modules=("ollama",),
)
OLLAMA_CHAT = replace(OLLAMA, name="ollama_chat", prefixes=("ollama_chat",))

PROVIDERS = (OLLAMA, OLLAMA_CHAT)

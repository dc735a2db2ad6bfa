"""The model providers, one module each: what the crew knows of each, and where to look it up.

openai.py, anthropic.py, gemini.py, ollama.py, vllm.py  a provider each: its endpoint and key
    variable, how its client is built, what its SDK raises, its limits, the CrewAI workarounds
    that concern it (crew/workarounds/, named, never imported from here)
others.py       CrewAI's other native providers, known by their model ids only
in_process.py   the local model, and the scripted and probe models of tests and `prompt`
facts.py        Provider, the record each provider module fills in
errors.py       what a provider's error means for a claim and the batch: stop, hold off, fall
                back, or fail the claim alone

A new provider is a module here with its PROVIDERS, named in MODULES below (a server that speaks
OpenAI's wire is one call of openai.openai_compatible, as vllm.py). Nothing in this
folder imports CrewAI at import time: `config check` reads it before any model is built.
"""

from __future__ import annotations

from claims_crew.llms.providers import anthropic, gemini, ollama, openai, others, vllm
from claims_crew.llms.providers.facts import Provider

MODULES = (openai, anthropic, gemini, ollama, vllm, others)

PROVIDERS: tuple[Provider, ...] = tuple(p for module in MODULES for p in module.PROVIDERS)

# Model-string prefix → its provider (CrewAI's own aliases: claude/ is Anthropic, google/ Gemini).
BY_PREFIX: dict[str, Provider] = {prefix: p for p in PROVIDERS for prefix in p.prefixes}


def provider_for(prefix: str) -> Provider | None:
    """The provider a model string's prefix names (lower case), or None for one CrewAI lacks."""
    return BY_PREFIX.get(prefix)


__all__ = ["BY_PREFIX", "MODULES", "PROVIDERS", "Provider", "provider_for"]

"""The providers' wire formats the scripted server speaks, by the provider's name.

Apart from tests/support/provider.py, which imports CrewAI, so that conftest.py can name the
wires for its `provider_server` fixture without CrewAI: under pytest-xdist the controller loads
conftest.py but runs no test, and importing CrewAI there held every worker's start back by the
seconds that import takes."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.anthropic_wire import AnthropicWire
from tests.support.gemini_wire import GeminiWire
from tests.support.openai_server import OpenAIWire, Wire

# Each wire's provider as a user names it: the model (a Claude name old enough for CrewAI's
# structured-output tool fallback; CLAUDE_NATIVE in provider.py takes the beta) and the key
# variable its client reads.
WIRES: dict[str, tuple[Callable[[], Wire], str, str]] = {
    "openai": (OpenAIWire, "openai/gpt-4o-mini", "OPENAI_API_KEY"),
    "anthropic": (AnthropicWire, "anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY"),
    "gemini": (GeminiWire, "gemini/gemini-2.0-flash", "GEMINI_API_KEY"),
}

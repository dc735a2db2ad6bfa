"""Gemini, through CrewAI's native client (google-genai, CrewAI's `google-genai` extra).

Its key is GEMINI_API_KEY (or GOOGLE_API_KEY, which google-genai reads first); `google/` names
it as well as `gemini/`. CrewAI 1.15's Gemini client never gives the base URL, the timeout or the
retries to google-genai, which would call Google's public endpoint with its own defaults: they
go in google-genai's own `http_options` (`client_params`), with the httpx hooks that take the
run's rate limit at the wire, since CrewAI refuses an interceptor for Gemini (llms/wire_gate.py).
CrewAI's Gemini client keeps each call's tools on the model object (`self.tools = tools`) and
reads them back to decide whether the answer is a tool call, so an agent without tools beside
one with them would lose a lookup and get an empty answer: each agent of each claim gets its own
copy of the run's client (llms/select.py's for_agent). google-genai lets httpx's own
TimeoutException through.
"""

from __future__ import annotations

from typing import Any

from claims_crew.llms.providers.facts import Provider


def client_params(base_url: str | None, timeout_s: float, retries: int) -> dict[str, Any]:
    """google-genai's http_options: the timeout in milliseconds, attempts counting the first."""
    from claims_crew.llms.wire_gate import GEMINI_CLIENT_ARGS  # imports CrewAI

    http: dict[str, Any] = {
        "timeout": int(timeout_s * 1000),
        "retry_options": {"attempts": retries + 1},
    }
    if base_url:
        http["base_url"] = base_url
    # The run's rate limit taken as each request goes out, retries included (wire_gate.py).
    http.update(GEMINI_CLIENT_ARGS)
    return {"http_options": http}


GEMINI = Provider(
    name="gemini",
    prefixes=("google", "gemini"),
    default_endpoint="https://generativelanguage.googleapis.com",
    key_variable="GEMINI_API_KEY",
    model_names=("gemini-", "gemma-", "learnlm-"),
    sdk_package=("google.genai", "crewai[google-genai]"),
    wire="client_hooks",
    client_params=client_params,
    copy_per_agent=True,
    client_modules=("google",),
    timeout_errors=("TimeoutException",),
    workarounds=("verbatim_answers",),
)

PROVIDERS = (GEMINI,)

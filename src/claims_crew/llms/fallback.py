"""A second model for a claim whose own provider failed for good: CLAIMS_CREW_FALLBACK_MODEL.

A provider that answers 5xx through every retry, or does not answer within the call timeout,
fails the claim though nothing is wrong with it. With CLAIMS_CREW_FALLBACK_MODEL set, such a
claim is reviewed once more, from the start, with every agent on that model
(run/crew_review.py), within the claim's same deadline and under the same rate limit. Off by
default: a second provider sees the claim, which a team must choose.

Only a provider's failure falls back (llms/providers/errors.py, provider_failed). A refusal
(401, 403, 404) would fail on the fallback's key no better and stops the batch instead
(run/batch_stop.py); a 429 holds every process off (llms/rate_limit.py, SharedRateLimit); an
answer that cannot be read is the model's, not the provider's.

The fallback reaches CLAIMS_CREW_FALLBACK_BASE_URL when set, else MODEL_BASE_URL (a gateway
configured for the run keeps every request), else the provider's own endpoint; the client is
built as the primary's are (llms/select.py), so a Gemini fallback's base URL reaches google-genai
too. Its key is CLAIMS_CREW_FALLBACK_API_KEY when set, else the provider's usual variable. An
agent's own `llm:` in agents.yaml is replaced as well: it names the provider that failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from claims_crew.errors import first_line
from claims_crew.settings import Limits, current

if TYPE_CHECKING:
    from crewai import BaseLLM

    from claims_crew.llms.select import LLMFactory


FALLBACK_KEY = "CLAIMS_CREW_FALLBACK_API_KEY"


def fallback_model() -> str | None:
    """The model CLAIMS_CREW_FALLBACK_MODEL names, if any."""
    model: str | None = current().claims_crew_fallback_model
    return model


def fallback_factory(model: str, limits: Limits) -> LLMFactory:
    """Every agent on `model`, one client for the run, with the run's timeout and retries."""
    from crewai import LLM

    from claims_crew.llms.endpoints import ModelChoice
    from claims_crew.llms.select import client_options, for_agent

    found = current()
    base_url = found.claims_crew_fallback_base_url or found.model_base_url
    # Its own key where the fallback is another provider's account, else the provider's usual
    # variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).
    key_variable = FALLBACK_KEY if found.claims_crew_fallback_api_key else None
    choice = ModelChoice(model, base_url, key_variable)
    llm = LLM(**client_options(choice, limits))

    def llm_for(_agent_name: str) -> BaseLLM:
        return for_agent(llm, choice)

    return llm_for


def fallback_note(code: str, message: str) -> str:
    """What the record says of a claim decided on the fallback: the primary's failure."""
    return f"decided on the fallback model: the primary failed with {code} ({first_line(message)})"

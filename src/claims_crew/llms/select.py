"""Which model each agent talks to.

`MODEL` names one for every agent, with any CrewAI provider string (openai/…, anthropic/…,
gemini/…, ollama/…, hosted_vllm/…); `MODEL_BASE_URL` points it at another endpoint, such as a
LiteLLM proxy or a company gateway. An agent's own `llm:` in agents.yaml wins over MODEL, and
`POLICY_MODEL`, `ADJUDICATOR_MODEL` and the like name one agent's model, endpoint and key
(endpoints.py). With nothing set, a local model runs in-process.

The base URL reaches every provider's client: CrewAI 1.15 hands it to OpenAI's and Anthropic's,
but its Gemini client never gives it to google-genai, which would call Google's public endpoint;
it goes in google-genai's own `http_options`, with the timeout and retries (what each provider's
client needs beyond CrewAI's options is in its module of llms/providers/).

A remote model's client gives up on a call after the run's per-call timeout and retries it at
most the run's number of times, with backoff (limits.py). Its own defaults (600 s a call for
OpenAI's client) would let one silent provider hold a claim for half an hour.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claims_crew.llms.endpoints import ModelChoice, model_choice
from claims_crew.llms.providers.in_process import local_model
from claims_crew.settings import Limits, variables

if TYPE_CHECKING:
    from crewai import BaseLLM

# CrewAI is imported only when a factory is made: `run` asks configured_model for its default
# concurrency before the config check, which refuses a broken config without loading CrewAI.
LLMFactory = Callable[[str], "BaseLLM"]


def configured_model(agent_name: str) -> str | None:
    """The model string the environment names for this agent, if any."""
    choice = model_choice(agent_name)
    return choice.model if choice else None


def client_options(choice: ModelChoice, limits: Limits) -> dict[str, Any]:
    """What CrewAI's LLM is given for this choice beyond the model string."""
    options: dict[str, Any] = {
        "model": choice.model,
        "base_url": choice.base_url,
        "timeout": limits.call_timeout_s,
        "max_retries": limits.retries,  # the client's own, backoff and Retry-After
    }
    if choice.key_variable:
        options["api_key"] = variables()[choice.key_variable]
    from claims_crew.llms.wire_gate import WIRE_GATE  # imports CrewAI

    facts = choice.facts
    if facts is not None and facts.wire == "interceptor":
        # The run's rate limit taken as each request, retries included, goes out (wire_gate.py).
        options["interceptor"] = WIRE_GATE
    if facts is not None and facts.client_params is not None:
        # What the provider's SDK reads only from its own options (llms/providers/gemini.py).
        params = facts.client_params(choice.base_url, limits.call_timeout_s, limits.retries)
        options["client_params"] = params
    return options


def for_agent(llm: BaseLLM, choice: ModelChoice) -> BaseLLM:
    """The run's one client for `choice`, as an agent gets it: the client itself, shared by
    agents and claims, or, for a provider whose client keeps a call's state on the model object
    (Gemini's, llms/providers/gemini.py), a copy for each agent of each claim; the copies share
    the SDK's client that costs."""
    facts = choice.facts
    return llm.model_copy() if facts is not None and facts.copy_per_agent else llm


def default_llm_factory(config_dir: Path | None = None, limits: Limits | None = None) -> LLMFactory:
    """A factory that gives each agent its configured model, or the shared local one.

    The local model's grammar offers only the answers that resolution.yaml in `config_dir`
    (default: the project's config) allows; it is read when the local model is first needed.
    Remote models get the call timeout and retries of `limits` (default: the environment's).
    """
    from crewai import LLM

    limits = limits or Limits.from_environment()
    local: list[BaseLLM] = []
    remote: dict[ModelChoice, BaseLLM] = {}
    building = threading.Lock()

    def llm_for(agent_name: str) -> BaseLLM:
        choice = model_choice(agent_name)
        if choice:
            with building:
                # One per model for the whole run, shared by agents and claims: building a
                # client loads the CA certificates twice (its sync and async HTTP clients),
                # about 0.1 s of CPU under the GIL, which per agent per claim was half of a
                # claim's own time. CrewAI keeps per-call state (stop words) out of the model
                # object, so calls from claims side by side do not meet there.
                if choice not in remote:
                    remote[choice] = LLM(**client_options(choice, limits))
                return for_agent(remote[choice], choice)
        with building:  # one local model per factory: loading weights twice wastes memory
            if not local:
                local.append(local_model(config_dir))
        return local[0]

    return llm_for

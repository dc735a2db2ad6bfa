"""Which model each agent talks to.

`MODEL` names one for every agent, with any CrewAI provider string (openai/…, anthropic/…,
ollama/…, hosted_vllm/…); `MODEL_BASE_URL` points it at an OpenAI-compatible endpoint such as
a LiteLLM proxy. An agent's own `llm:` in agents.yaml wins over MODEL, and `ADJUDICATOR_MODEL`
may name a stronger model for the adjudicator. With nothing set, a local model runs in-process.

A remote model's client gives up on a call after the run's per-call timeout and retries it at
most the run's number of times, with backoff (limits.py). Its own defaults (600 s a call for
OpenAI's client) would let one silent provider hold a claim for half an hour.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from claims_crew.run.limits import Limits

if TYPE_CHECKING:
    from crewai import BaseLLM

# CrewAI is imported only when a factory is made: `run` asks configured_model for its default
# concurrency before the config check, which refuses a broken config without loading CrewAI.
LLMFactory = Callable[[str], "BaseLLM"]


def configured_model(agent_name: str) -> str | None:
    """The model string the environment names for this agent, if any."""
    if agent_name == "adjudicator" and (model := os.environ.get("ADJUDICATOR_MODEL")):
        return model
    return os.environ.get("MODEL") or None


def default_llm_factory(config_dir: Path | None = None, limits: Limits | None = None) -> LLMFactory:
    """A factory that gives each agent its configured model, or the shared local one.

    The local model's grammar offers only the answers that resolution.yaml in `config_dir`
    (default: the project's config) allows; it is read when the local model is first needed.
    Remote models get the call timeout and retries of `limits` (default: the environment's).
    """
    from crewai import LLM

    limits = limits or Limits.from_environment()
    local: list[BaseLLM] = []
    remote: dict[tuple[str, str | None], BaseLLM] = {}
    building = threading.Lock()

    def llm_for(agent_name: str) -> BaseLLM:
        model = configured_model(agent_name)
        if model:
            base_url = os.environ.get("MODEL_BASE_URL") or None
            with building:
                # One per model for the whole run, shared by agents and claims: building a
                # client loads the CA certificates twice (its sync and async HTTP clients),
                # about 0.1 s of CPU under the GIL, which per agent per claim was half of a
                # claim's own time. CrewAI keeps per-call state (stop words) out of the model
                # object, so calls from claims side by side do not meet there.
                if (model, base_url) not in remote:
                    remote[(model, base_url)] = LLM(
                        model=model,
                        base_url=base_url,
                        timeout=limits.call_timeout_s,
                        max_retries=limits.retries,  # the client's own, backoff and Retry-After
                    )
                return remote[(model, base_url)]
        with building:  # one local model per factory: loading weights twice wastes memory
            if not local:
                from claims_crew.llms.local import LocalLLM
                from claims_crew.resolver.config import load_config

                allowed = load_config(config_dir).allowed_answers
                local.append(LocalLLM.from_environment(allowed))
        return local[0]

    return llm_for

"""Which model, endpoint and key each agent gets, from the settings (the environment's, else
the settings file's: claims_crew.settings).

`MODEL` names one model for every agent and `MODEL_BASE_URL` its endpoint. An agent may have its
own: `POLICY_MODEL`, `POLICY_MODEL_BASE_URL` and `POLICY_MODEL_API_KEY` (likewise INTAKE_,
FRAUD_, ADJUDICATOR_), so that the policy and the fraud reviewer can run on models of different
providers, each behind its own gateway and key. An agent's own model without its own base URL
takes `MODEL_BASE_URL`; without its own key, the provider's usual variable (OPENAI_API_KEY,
ANTHROPIC_API_KEY, GEMINI_API_KEY, ...). Ollama and vLLM read CrewAI's own variables,
`OLLAMA_HOST` and `VLLM_BASE_URL`, when no base URL is set here. Each provider's variables and
default endpoint are in its module of llms/providers/.

Pure and free of CrewAI: `claims-crew config check` shows the choice without building a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from claims_crew.llms.providers import Provider, provider_for
from claims_crew.llms.providers.facts import PROVIDER_DEFAULT
from claims_crew.llms.providers.in_process import LOCAL_ENDPOINT, LOCAL_MODEL
from claims_crew.settings import variables
from claims_crew.settings.masking import without_passwords


@dataclass(frozen=True)
class ModelChoice:
    """One agent's model: the model string, the base URL given to its client (None: the
    provider's own default), and the variable its key is read from (never the key itself)."""

    model: str
    base_url: str | None
    key_variable: str | None  # None: the provider's own variable

    @property
    def provider(self) -> str:
        return self.model.split("/", 1)[0].lower() if "/" in self.model else "openai"

    @property
    def facts(self) -> Provider | None:
        """What llms/providers/ knows of its provider (None: one CrewAI does not build)."""
        return provider_for(self.provider)

    def endpoint(self, env: Mapping[str, str] | None = None) -> str:
        """Where its calls go: the base URL, or the provider's own variable or default."""
        if self.base_url:
            return self.base_url
        facts = self.facts
        variable = facts.endpoint_variable if facts else None
        default = facts.default_endpoint if facts else PROVIDER_DEFAULT
        found = (env if env is not None else variables()).get(variable or "")
        return found or default


def _prefix(agent_name: str) -> str:
    return agent_name.upper()


def model_choice(agent_name: str, env: Mapping[str, str] | None = None) -> ModelChoice | None:
    """The agent's own model if the environment names one, else MODEL's; None for neither."""
    env = env if env is not None else variables()
    own = env.get(f"{_prefix(agent_name)}_MODEL") or None
    model = own or env.get("MODEL") or None
    if model is None:
        return None
    base_url = (own and env.get(f"{_prefix(agent_name)}_MODEL_BASE_URL")) or None
    base_url = base_url or env.get("MODEL_BASE_URL") or None
    key_variable = f"{_prefix(agent_name)}_MODEL_API_KEY"
    return ModelChoice(model, base_url, key_variable if own and env.get(key_variable) else None)


@dataclass(frozen=True)
class AgentModel:
    """What `config check` shows for one agent: never a key, only where it is read from, and
    its endpoint without a URL's password."""

    agent: str
    model: str  # "local" when no model is named: the in-process default
    endpoint: str
    key_variable: str | None

    def as_json(self) -> dict[str, str | None]:
        return {
            "agent": self.agent,
            "model": self.model,
            "endpoint": self.endpoint,
            "key_variable": self.key_variable,
        }


def agent_models(
    yaml_models: Mapping[str, str | None], env: Mapping[str, str] | None = None
) -> list[AgentModel]:
    """Each agent's model and endpoint: its `llm:` in agents.yaml (`yaml_models`), else its own
    or MODEL's from the environment, else the local model."""
    env = env if env is not None else variables()
    shown = []
    for agent, own in yaml_models.items():
        choice = ModelChoice(own, None, None) if own else model_choice(agent, env)
        if choice is None:
            shown.append(AgentModel(agent, LOCAL_MODEL, LOCAL_ENDPOINT, None))
            continue
        key = choice.key_variable or (choice.facts.key_variable if choice.facts else None)
        # Shown, never the password of a gateway's `user:password@` in it.
        endpoint = without_passwords(choice.endpoint(env))
        shown.append(AgentModel(agent, choice.model, endpoint, key))
    return shown

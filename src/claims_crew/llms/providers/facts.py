"""What the crew knows of one model provider, in one record: a provider module fills one in.

Free of CrewAI at import, like every module of this folder: `claims-crew config check` reads
these facts without building a model. A fact that needs a provider's SDK or CrewAI to act on
(a client's parameters) is a function that imports them when called.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

# What `config check` shows as the endpoint of a provider whose default it does not know.
PROVIDER_DEFAULT = "the provider's default"

# How the run's rate limit reaches a provider's requests (llms/wire_gate.py): CrewAI's httpx
# interceptor, httpx event hooks in the SDK's own client options, or only the pre-call hook
# (llms/cutoff.py) for a client that takes neither.
Wire = Literal["interceptor", "client_hooks", "pre_call"]

# A client's parameters beyond CrewAI's own: (base URL, call timeout in seconds, retries) → the
# `client_params` CrewAI's LLM is given.
ClientParams = Callable[[str | None, float, int], dict[str, Any]]

# A model id the provider would refuse: (the model string as written, the name after its
# prefix) → (why, hint, whether LiteLLM, where installed, might take it after all), or None when
# the id has the provider's shape.
IdCheck = Callable[[str, str], tuple[str, str, bool] | None]


@dataclass(frozen=True)
class Provider:
    """One provider as CrewAI 1.15 builds it natively (LiteLLM is not installed)."""

    name: str  # CrewAI's name for it (crewai.llm.PROVIDER_ALIASES' values)
    prefixes: tuple[str, ...]  # the model-string prefixes that name it
    # Where its client goes without a base URL: CrewAI's own variable for it, and the default.
    endpoint_variable: str | None = None
    default_endpoint: str = PROVIDER_DEFAULT
    key_variable: str | None = None  # the variable its key is read from by default
    # The model names it takes natively (crewai.LLM._matches_provider_pattern); empty: any.
    model_names: tuple[str, ...] = ()
    id_check: IdCheck | None = None
    # Its SDK when that is an optional extra of CrewAI: (module to find, what to install).
    sdk_package: tuple[str, str] | None = None
    wire: Wire = "pre_call"
    # The ends of request paths it limits apart from its messages: not counted under the run's
    # rate limit at the wire (llms/wire_gate.py).
    uncounted_paths: tuple[str, ...] = ()
    client_params: ClientParams | None = None
    # Whether each agent needs its own copy of the run's client (Gemini's keeps call state).
    copy_per_agent: bool = False
    # The top-level modules of its client that read a response body: a JSON error raised in
    # one of them is the provider's answer failing to parse (errors.malformed_response).
    client_modules: tuple[str, ...] = ()
    # Names of its client's timeout errors that carry no socket timeout behind them.
    timeout_errors: tuple[str, ...] = ()
    # Its SDK's classes a chat call reads, declared with deferred pydantic builds: module →
    # class names (crew/workarounds/sdk_models.py builds them before claims run side by side).
    response_models: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The most images one request may carry, where the provider sets a number (crew/images.py).
    images_per_request: int | None = None
    # The modules of crew/workarounds/ that concern it, each naming its upstream issue.
    workarounds: tuple[str, ...] = ()

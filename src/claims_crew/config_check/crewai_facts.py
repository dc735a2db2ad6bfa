"""What the config check knows of CrewAI 1.15: its YAML keys, its providers, its model names.

The providers and their model names are each provider's module in llms/providers/ (free of
CrewAI at import, like this package); the YAML keys are here.

Written down rather than read from CrewAI, because importing CrewAI costs seconds and the check
runs before every crew run. tests/test_config_check.py holds these tables to the installed
CrewAI, so an upgrade that changes one fails a test instead of the check going quietly wrong.
"""

from __future__ import annotations

import importlib.util
import re

from claims_crew.config_check.problems import Severity, nearest
from claims_crew.llms.providers import BY_PREFIX

# What every agent and every task entry must give for CrewAI to build it.
AGENT_REQUIRED: tuple[str, ...] = ("role", "goal", "backstory")
TASK_REQUIRED: tuple[str, ...] = ("description", "expected_output", "agent")

# Fields of CrewAI's Agent and Task that a YAML entry can usefully set (CrewAI 1.15). Fields that
# only code can fill (ids, executors, outputs, timestamps) are left out, so writing one is
# reported as an unknown key.
AGENT_KEYS: frozenset[str] = frozenset(
    {
        "role",
        "goal",
        "backstory",
        "llm",
        "function_calling_llm",
        "max_iter",
        "max_rpm",
        "max_tokens",
        "max_execution_time",
        "max_retry_limit",
        "cache",
        "use_system_prompt",
        "system_template",
        "prompt_template",
        "response_template",
        "respect_context_window",
        "inject_date",
        "date_format",
        "reasoning",
        "max_reasoning_attempts",
        "multimodal",
        "allow_code_execution",
        "code_execution_mode",
        "knowledge_sources",
        "knowledge_config",
        "embedder",
        "planning",
        "guardrail_max_retries",
    }
)
TASK_KEYS: frozenset[str] = frozenset(
    {
        "name",
        "description",
        "expected_output",
        "agent",
        "context",
        "async_execution",
        "human_input",
        "markdown",
        "output_file",
        "create_directory",
        "max_retries",
        "guardrail_max_retries",
        "allow_crewai_trigger_context",
    }
)

# Keys CrewAI accepts in YAML but that never take effect in this crew, and why. Each is an
# error: whoever wrote it expects a behaviour the run will not have.
AGENT_IGNORED: dict[str, str] = {
    "allow_delegation": "crew.py sets allow_delegation=False for every agent, over the YAML",
    "memory": "crew.py sets memory=False for every agent, over the YAML",
    "verbose": "crew.py sets verbose=False for every agent, over the YAML",
    "tools": "crew.py gives each agent its tools (policy_lookup for policy and fraud)",
    "step_callback": "a callback name in YAML needs a @callback method, and crew.py has none",
    "callbacks": "a callback name in YAML needs a @callback method, and crew.py has none",
    "cache_handler": "a cache handler in YAML needs a @cache_handler method; crew.py has none",
    "guardrail": "a guardrail written in YAML is text, not a function: CrewAI asks a model "
    "to judge the answer against it",
}
TASK_IGNORED: dict[str, str] = {
    "output_pydantic": "CrewAI drops output_pydantic written in YAML; crew.py sets it "
    "in the @task method",
    "output_json": "CrewAI drops output_json written in YAML; set it in crew.py's @task method",
    "converter_cls": "crew.py sets the converter in the @task method",
    "response_model": "crew.py sets the output schema in the @task method",
    "guardrail": "a guardrail written in YAML is text, not a function name: CrewAI asks a "
    "model to judge the answer against it; give a function in crew.py's @task method",
    "guardrails": "a guardrail written in YAML is text, not a function name: CrewAI asks a "
    "model to judge the answer against it; give a function in crew.py's @task method",
    "callback": "a callback name in YAML is never resolved; set it in crew.py",
    "callbacks": "CrewAI reads callbacks from YAML and then drops them: Task has no such field",
    "tools": "crew.py gives the tools to the agents; a tool name here needs a @tool method",
}

# Task keys CrewAI honours that break a run of this crew, the value that is harmless (None:
# none is), and why. DESIGN.md's CrewAI traps say more.
TASK_REFUSED: dict[str, tuple[object, str, str]] = {
    "human_input": (
        False,
        "human_input: true makes CrewAI stop after the task and wait for a person to type at the "
        "console: a batch run stalls, and with no console it fails (EOFError)",
        "remove it: a claim the rules cannot settle already goes to a person, through the "
        "review queue (claims-crew review list)",
    ),
    "output_file": (
        None,
        "output_file makes CrewAI write the agent's answer, claim details and all, to that path "
        "on every claim: outside CLAIMS_CREW_HOME, each claim overwriting the one before",
        "remove it: every answer is kept in the claim's record in the store "
        "(claims-crew review show CLAIM_ID, claims-crew report)",
    ),
}

# Settings of a model (CrewAI's LLM), not of an agent: written in agents.yaml they are unknown
# keys, and near misses of them ("temprature") are pointed here rather than left without a hint.
MODEL_SETTINGS: frozenset[str] = frozenset(
    {"temperature", "top_p", "seed", "frequency_penalty", "presence_penalty", "stop"}
)


def model_setting_hint(key: str) -> str:
    return (
        f"{key} is a setting of the model, not of the agent: CrewAI's Agent has no such field, "
        f"and the crew builds each model from MODEL (or the agent's llm:) with the provider's "
        f"default {key}"
    )


# CrewAI's model providers and the prefixes that name them (crewai.llm.PROVIDER_ALIASES), from
# each provider's module in llms/providers/. LiteLLM is not installed, so a model string must
# reach one of these natively.
PROVIDER_ALIASES: dict[str, str] = {prefix: p.name for prefix, p in BY_PREFIX.items()}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


# CrewAI's template variables: {name} with a letter or underscore first; JSON is left alone.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_\-]*)}")
INTERPOLATED: dict[str, tuple[str, ...]] = {
    "agents.yaml": ("role", "goal", "backstory"),
    "tasks.yaml": ("description", "expected_output"),
}


def llm_problem(model: str) -> tuple[str, str, Severity] | None:
    """Why CrewAI would not build a model from this string, with a hint, or None if it would."""
    model = model.strip()
    if not model:
        return ("llm is empty", "remove the key to use MODEL, or name a model", "error")
    prefix, slash, name = model.partition("/")
    if not slash:
        return (
            f"{model!r} names no provider; CrewAI guesses one from the name (OpenAI when in doubt)",
            "write provider/model, e.g. openai/gpt-4o-mini or ollama/llama3.2",
            "warning",
        )
    facts = BY_PREFIX.get(prefix.lower())
    litellm = _installed("litellm")
    if facts is None:
        guess = nearest(prefix.lower(), list(PROVIDER_ALIASES))
        return (
            f"no CrewAI provider is called {prefix!r}",
            (f"did you mean {guess}/{name}? " if guess else "")
            + "providers: "
            + ", ".join(sorted(PROVIDER_ALIASES)),
            "warning" if litellm else "error",
        )
    if not name:
        return (f"{model!r} names no model after the provider", "e.g. openai/gpt-4o-mini", "error")
    provider = facts.name
    if facts.id_check is not None and (refused := facts.id_check(model, name)) is not None:
        why, hint, litellm_might = refused
        return (why, hint, "warning" if litellm and litellm_might else "error")
    starts = facts.model_names
    if starts and not name.lower().startswith(starts):
        return (
            f"CrewAI's {provider} provider does not take the model {name!r}",
            f"its model names start with {', '.join(starts)}",
            "warning" if litellm else "error",
        )
    if facts.sdk_package is not None and not _installed(facts.sdk_package[0]):
        module, extra = facts.sdk_package
        return (
            f"CrewAI's {provider} provider needs the {module} package, which is not installed",
            f"uv add '{extra}'",
            "error",
        )
    return None

"""`claims-crew config check`: find the mistakes in config/*.yaml that CrewAI would pass over.

CrewAI is quiet about a crew's YAML: a missing file becomes `{}`, an unknown key is skipped,
`output_pydantic` or a guardrail function name written in YAML never takes effect, and a
misspelt `{placeholder}` fails only when a claim is run. This module reads the three files
with PyYAML's node API, so every problem names its file, key path and line.

It must stay free of CrewAI imports: the check runs before every crew run and on its own, and
importing the model stack would cost seconds. What it knows of CrewAI (its Agent and Task
fields, its model providers) is written down here and held to the installed CrewAI by
tests/test_config_check.py.
"""

from __future__ import annotations

import difflib
import importlib.util
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ValidationError

from claims_crew import paths
from claims_crew.errors import ConfigError

Severity = Literal["error", "warning"]

# What pipeline.review_claim gives crew.kickoff(inputs=...): the only names a {placeholder}
# in agents.yaml or tasks.yaml may use. The pipeline builds its inputs from these keys.
PIPELINE_INPUTS: dict[str, str] = {
    "claim_id": "the claim file's claim_id",
    "policy_id": "the claim file's policy_id",
    "claim_text": "the claim file and its attachments, as text",
    "allowed_answers": "the answers resolution.yaml allows, comma-separated",
    "dispute": "the two reviewers' claims, for the adjudicator (empty otherwise)",
}

# The @agent and @task methods of crew.ClaimsCrew; a YAML entry for any other name is never
# read, and a missing one stops the crew from being built.
CREW_AGENTS: tuple[str, ...] = ("intake", "policy", "fraud", "adjudicator")
CREW_TASKS: tuple[str, ...] = ("intake_task", "policy_task", "fraud_task", "adjudicate_task")

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

# CrewAI's model providers and the prefixes that name them (crewai.llm.PROVIDER_ALIASES).
# LiteLLM is not installed, so a model string must reach one of these natively.
PROVIDER_ALIASES: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "claude": "anthropic",
    "azure": "azure",
    "azure_openai": "azure",
    "google": "gemini",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "aws": "bedrock",
    "openrouter": "openrouter",
    "deepseek": "deepseek",
    "ollama": "ollama",
    "ollama_chat": "ollama_chat",
    "hosted_vllm": "hosted_vllm",
    "cerebras": "cerebras",
    "dashscope": "dashscope",
    "snowflake": "snowflake",
    "deepinfra": "deepinfra",
}
# The model names a provider takes natively (crewai.LLM._matches_provider_pattern); providers
# absent here take any name. Every model in CrewAI's own tables matches these.
MODEL_PREFIXES: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-", "o1", "o3", "o4", "whisper-"),
    "anthropic": ("claude-", "anthropic."),
    "gemini": ("gemini-", "gemma-", "learnlm-"),
    "deepseek": ("deepseek",),
}

# Providers whose SDK is an optional extra of CrewAI: without it, CrewAI cannot build the model.
PROVIDER_PACKAGES: dict[str, tuple[str, str]] = {
    "anthropic": ("anthropic", "crewai[anthropic]"),
    "azure": ("azure.ai.inference", "crewai[azure-ai-inference]"),
    "gemini": ("google.genai", "crewai[google-genai]"),
    "bedrock": ("boto3", "crewai[bedrock]"),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


# CrewAI's template variables: {name} with a letter or underscore first; JSON is left alone.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_\-]*)}")
INTERPOLATED: dict[str, tuple[str, ...]] = {
    "agents.yaml": ("role", "goal", "backstory"),
    "tasks.yaml": ("description", "expected_output", "output_file"),
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong in one config file, with where it is and what to do about it."""

    file: str
    key: str
    line: int | None  # 1-based; None when the problem is the whole file
    code: str
    message: str
    hint: str = ""
    severity: Severity = "error"

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    def location(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where} {self.key}" if self.key else where


def format_problems(problems: Sequence[Problem]) -> str:
    lines = []
    for p in problems:
        lines.append(f"{p.location()}: {p.severity}: {p.message}")
        if p.hint:
            lines.append(f"    hint: {p.hint}")
    return "\n".join(lines)


def nearest(word: str, choices: Sequence[str] | frozenset[str]) -> str | None:
    found = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def _did_you_mean(word: str, choices: Sequence[str] | frozenset[str]) -> str:
    guess = nearest(word, choices)
    return f"did you mean {guess!r}?" if guess else ""


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _scalar(node: yaml.Node) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _entries(node: yaml.MappingNode) -> Iterator[tuple[str, yaml.Node, yaml.Node]]:
    for key_node, value_node in node.value:
        yield str(key_node.value), key_node, value_node


# --- reading a file -----------------------------------------------------------------------


@dataclass(frozen=True)
class Loaded:
    """A YAML file as both nodes (for lines) and plain data (for validation)."""

    name: str
    text: str
    root: yaml.MappingNode
    data: dict[str, Any]


def _load(folder: Path, name: str, problems: list[Problem]) -> Loaded | None:
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        problems.append(
            Problem(
                name,
                "",
                None,
                "missing_file",
                f"{path} does not exist",
                "CrewAI would run with no config at all; copy it back from git",
            )
        )
        return None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(name, "", None, "unreadable_file", f"{path}: {exc}"))
        return None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problems.append(
            Problem(
                name,
                "",
                mark.line + 1 if mark is not None else None,
                "yaml_syntax",
                f"not valid YAML: {exc.problem or exc}",
                "check the indentation and quoting on that line and the one before it",
            )
        )
        return None
    except yaml.YAMLError as exc:
        problems.append(Problem(name, "", None, "yaml_syntax", f"not valid YAML: {exc}"))
        return None
    if root is None:
        problems.append(
            Problem(
                name,
                "",
                None,
                "empty_file",
                f"{path} is empty",
                "CrewAI would treat it as {} and run with nothing configured",
            )
        )
        return None
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, dict):
        problems.append(
            Problem(
                name,
                "",
                _line(root),
                "not_a_mapping",
                "the file must be a mapping of names to settings",
            )
        )
        return None
    problems.extend(_duplicates(name, root))
    return Loaded(name, text, root, data)


def _duplicates(name: str, node: yaml.Node, path: str = "") -> Iterator[Problem]:
    """PyYAML keeps the last of two equal keys without a word; the first is lost."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, key_node, value_node in _entries(node):
            full = f"{path}.{key}" if path else key
            if key in seen:
                yield Problem(
                    name,
                    full,
                    _line(key_node),
                    "duplicate_key",
                    f"{key!r} is set twice (first on line {seen[key]}); only this one counts",
                    "merge the two into one entry",
                )
            seen.setdefault(key, _line(key_node))
            yield from _duplicates(name, value_node, full)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _duplicates(name, item, f"{path}[{i}]")


# --- agents.yaml and tasks.yaml -----------------------------------------------------------


def _placeholders(loaded: Loaded, key: str, node: yaml.Node) -> Iterator[Problem]:
    if not isinstance(node, yaml.ScalarNode):
        return
    source = loaded.text[node.start_mark.index : node.end_mark.index]
    for match in PLACEHOLDER.finditer(source):
        word = match.group(1)
        if word in PIPELINE_INPUTS:
            continue
        guess = nearest(word, list(PIPELINE_INPUTS))
        yield Problem(
            loaded.name,
            key,
            _line(node) + source.count("\n", 0, match.start()),
            "unknown_placeholder",
            f"{{{word}}} is not supplied by the pipeline; it supplies "
            + ", ".join(f"{{{n}}}" for n in PIPELINE_INPUTS),
            (f"did you mean {{{guess}}}? " if guess else "")
            + "a literal brace needs other text inside it, such as { word }",
        )


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
    provider = PROVIDER_ALIASES.get(prefix.lower())
    litellm = _installed("litellm")
    if provider is None:
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
    if provider == "deepinfra":
        parts = name.split("/")
        if len(parts) != 2 or not all(parts):
            return (
                f"{model!r}: DeepInfra model ids are org/model",
                "e.g. deepinfra/deepseek-ai/DeepSeek-V3",
                "error",
            )
        return None
    if provider == "bedrock" and "." not in name:
        return (
            f"{model!r} is not a Bedrock model id",
            "Bedrock ids look like anthropic.claude-3-haiku-20240307-v1:0",
            "warning" if litellm else "error",
        )
    starts = MODEL_PREFIXES.get(provider)
    if starts and not name.lower().startswith(starts):
        return (
            f"CrewAI's {provider} provider does not take the model {name!r}",
            f"its model names start with {', '.join(starts)}",
            "warning" if litellm else "error",
        )
    if provider in PROVIDER_PACKAGES and not _installed(PROVIDER_PACKAGES[provider][0]):
        module, extra = PROVIDER_PACKAGES[provider]
        return (
            f"CrewAI's {provider} provider needs the {module} package, which is not installed",
            f"uv add '{extra}'",
            "error",
        )
    return None


def _check_entry(
    loaded: Loaded,
    entry: str,
    entry_line: int,
    node: yaml.MappingNode,
    known: frozenset[str],
    ignored: dict[str, str],
    required: tuple[str, ...],
) -> Iterator[Problem]:
    present = set()
    for key, key_node, value_node in _entries(node):
        path = f"{entry}.{key}"
        present.add(key)
        if key in ignored:
            yield Problem(
                loaded.name,
                path,
                _line(key_node),
                "ignored_key",
                f"{key} in YAML has no effect",
                ignored[key],
            )
        elif key not in known:
            yield Problem(
                loaded.name,
                path,
                _line(key_node),
                "unknown_key",
                f"unknown key {key!r}: CrewAI skips it without a word",
                _did_you_mean(key, known),
            )
        elif key in required and not (_scalar(value_node) or "").strip():
            yield Problem(
                loaded.name,
                path,
                _line(key_node),
                "missing_field",
                f"{entry} has an empty {key}",
                f"every entry needs {', '.join(required)}",
            )
        if key in INTERPOLATED[loaded.name]:
            yield from _placeholders(loaded, path, value_node)
    for key in required:
        if key not in present:
            yield Problem(
                loaded.name,
                entry,
                entry_line,
                "missing_field",
                f"{entry} has no {key}",
                f"every entry needs {', '.join(required)}",
            )


def check_agents(loaded: Loaded) -> list[Problem]:
    problems: list[Problem] = []
    for name, line, entries in _entries_of(loaded, CREW_AGENTS, "agent", problems):
        problems.extend(
            _check_entry(loaded, name, line, entries, AGENT_KEYS, AGENT_IGNORED, AGENT_REQUIRED)
        )
        for key, _key_node, value_node in _entries(entries):
            if key == "llm":
                problems.extend(_check_llm(loaded, f"{name}.llm", value_node))
    return problems


def _check_llm(loaded: Loaded, path: str, node: yaml.Node) -> Iterator[Problem]:
    value = _scalar(node)
    if value is None or node.tag != "tag:yaml.org,2002:str":
        yield Problem(loaded.name, path, _line(node), "bad_llm", "llm must be a model string")
        return
    found = llm_problem(value)
    if found is not None:
        message, hint, severity = found
        yield Problem(loaded.name, path, _line(node), "bad_llm", message, hint, severity)


def check_tasks(loaded: Loaded, agents: Sequence[str]) -> list[Problem]:
    problems: list[Problem] = []
    for name, line, entries in _entries_of(loaded, CREW_TASKS, "task", problems):
        problems.extend(
            _check_entry(loaded, name, line, entries, TASK_KEYS, TASK_IGNORED, TASK_REQUIRED)
        )
        for key, _key_node, value_node in _entries(entries):
            if key == "agent" and (agent := _scalar(value_node)) and agent not in agents:
                problems.append(
                    Problem(
                        loaded.name,
                        f"{name}.agent",
                        _line(value_node),
                        "unknown_agent",
                        f"{name} names agent {agent!r}, which agents.yaml does not define",
                        _did_you_mean(agent, agents)
                        or f"the agents are {', '.join(agents) or 'none'}",
                    )
                )
            if key == "context":
                problems.extend(_check_context(loaded, name, value_node))
    return problems


def _check_context(loaded: Loaded, task: str, node: yaml.Node) -> Iterator[Problem]:
    items = node.value if isinstance(node, yaml.SequenceNode) else None
    if items is None:
        yield Problem(
            loaded.name,
            f"{task}.context",
            _line(node),
            "bad_context",
            "context must be a list of task names",
            "e.g. context: [intake_task]",
        )
        return
    order = list(loaded.data)
    for item in items:
        ref = _scalar(item)
        if ref in loaded.data and ref != task and order.index(ref) > order.index(task):
            # CrewBase builds a context task while reading the task that names it; a task
            # further down still has its agent as a bare name then, and the crew fails to build.
            yield Problem(
                loaded.name,
                f"{task}.context",
                _line(item),
                "context_order",
                f"{task}'s context names {ref!r}, which comes later in tasks.yaml; "
                "CrewAI fails to build the crew",
                f"move {ref} above {task}",
            )
        elif ref not in loaded.data or ref == task:
            yield Problem(
                loaded.name,
                f"{task}.context",
                _line(item),
                "unknown_task",
                f"{task}'s context names {ref!r}, which is not another task in tasks.yaml",
                _did_you_mean(str(ref), [t for t in loaded.data if t != task]),
            )


def _entries_of(
    loaded: Loaded, expected: tuple[str, ...], what: str, problems: list[Problem]
) -> list[tuple[str, int, yaml.MappingNode]]:
    """The well-formed entries; names crew.py does not define, and absent ones, are reported."""
    good: list[tuple[str, int, yaml.MappingNode]] = []
    for name, key_node, value_node in _entries(loaded.root):
        if name not in expected:
            problems.append(
                Problem(
                    loaded.name,
                    name,
                    _line(key_node),
                    f"unknown_{what}",
                    f"crew.py defines no {what} {name!r}; CrewAI never reads this entry",
                    _did_you_mean(name, expected) or f"the crew's {what}s: {', '.join(expected)}",
                )
            )
        elif not isinstance(value_node, yaml.MappingNode):
            problems.append(
                Problem(
                    loaded.name,
                    name,
                    _line(key_node),
                    "not_a_mapping",
                    f"{what} {name!r} must be a mapping of settings",
                )
            )
        else:
            good.append((name, _line(key_node), value_node))
    for name in expected:
        if name not in loaded.data:
            problems.append(
                Problem(
                    loaded.name,
                    name,
                    None,
                    f"missing_{what}",
                    f"no {what} {name!r}: crew.py builds it from this file",
                    f"add a {name}: entry",
                )
            )
    return good


# --- resolution.yaml ----------------------------------------------------------------------


def _walk(root: yaml.Node, loc: Sequence[int | str]) -> tuple[str, int | None]:
    """The key path and line of a pydantic error's `loc`, as deep as the YAML goes."""
    node: yaml.Node = root
    path = ""
    line: int | None = _line(root)
    for part in loc:
        if isinstance(part, int) and isinstance(node, yaml.SequenceNode):
            if part >= len(node.value):
                break
            node = node.value[part]
            path, line = f"{path}[{part}]", _line(node)
        elif isinstance(node, yaml.MappingNode):
            found = [(k, v) for key, k, v in _entries(node) if key == str(part)]
            if not found:
                break
            key_node, node = found[-1]
            path, line = (f"{path}.{part}" if path else str(part)), _line(key_node)
        else:
            break
    return path, line


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if (model := _inner_model(arg)) is not None:
            return model
    return None


def _keys_at(model: type[BaseModel] | None, loc: Sequence[int | str]) -> list[str]:
    """The keys allowed in the mapping at `loc`, by following the models' fields."""
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        model = _inner_model(field.annotation) if field is not None else None
    if model is None:
        return []
    return [f.alias or n for n, f in model.model_fields.items()]


GATE_HINT = "a gate's field is claim_file.<field>, facts.<field>, policy.<field> or fraud.<field>"


def check_resolution(loaded: Loaded) -> list[Problem]:
    # Imported here: the models behind resolution.yaml are only needed when the file parsed.
    from claims_crew.resolver.config import OUTCOMES, ResolutionConfig, gate_fields

    try:
        ResolutionConfig.model_validate(loaded.data)
    except ValidationError as exc:
        errors = exc.errors()
    else:
        return []
    problems = []
    for err in errors:
        loc = list(err["loc"])
        message = str(err["msg"]).removeprefix("Value error, ")
        code, hint = "invalid_value", ""
        if not loc and (m := re.match(r"(\w+): ", message)):
            loc = [m.group(1)]  # a whole-file rule names the key it is about first
        path, line = _walk(loaded.root, loc)
        kind = err["type"]
        if kind == "extra_forbidden":
            code = "unknown_key"
            message = f"unknown key {str(loc[-1])!r}"
            hint = _did_you_mean(str(loc[-1]), _keys_at(ResolutionConfig, loc[:-1]))
        elif kind in ("greater_than_equal", "less_than_equal") and loc[:1] == ["accept"]:
            code = "bad_threshold"
            message = f"{err['input']!r} is outside [0, 1]"
            hint = "confidence thresholds are numbers from 0 to 1"
        elif kind == "literal_error":
            choices = re.findall(r"'([^']*)'", str(err.get("ctx", {}).get("expected", "")))
            code = "unknown_outcome" if loc[:1] == ["automatic_outcomes"] else "invalid_value"
            message = f"{err['input']!r} is not one of {', '.join(choices)}"
            hint = _did_you_mean(str(err["input"]), choices)
            if code == "unknown_outcome":
                message = f"unknown outcome {err['input']!r}; the outcomes are " + ", ".join(
                    OUTCOMES
                )
        elif "unknown field" in message and loc[:1] == ["gates"]:
            code = "unknown_gate_field"
            field_loc = [*loc, "field"]
            path, line = _walk(loaded.root, field_loc)
            bad = re.search(r"unknown field '([^']*)'", message)
            hint = (_did_you_mean(bad.group(1), gate_fields()) if bad else "") or GATE_HINT
        problems.append(Problem(loaded.name, path, line, code, message, hint))
    return problems


# --- the whole folder ---------------------------------------------------------------------

FILES: tuple[str, ...] = ("agents.yaml", "tasks.yaml", "resolution.yaml")


def check_config(config_dir: Path | None = None) -> list[Problem]:
    """Every problem in config/agents.yaml, tasks.yaml and resolution.yaml, file by file."""
    folder = config_dir if config_dir is not None else paths.config_dir()
    problems: list[Problem] = []
    agents = _load(folder, "agents.yaml", problems)
    if agents is not None:
        problems.extend(check_agents(agents))
    tasks = _load(folder, "tasks.yaml", problems)
    if tasks is not None:
        # With agents.yaml unreadable, compare against the crew's own names, not against none.
        names = list(agents.data) if agents is not None else list(CREW_AGENTS)
        problems.extend(check_tasks(tasks, names))
    resolution = _load(folder, "resolution.yaml", problems)
    if resolution is not None:
        problems.extend(check_resolution(resolution))
    return sorted(problems, key=lambda p: (FILES.index(p.file), p.line or 0))


def errors(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def check_or_raise(config_dir: Path | None = None) -> None:
    """Stop a run before any model call when the config has an error; warnings pass."""
    folder = config_dir if config_dir is not None else paths.config_dir()
    found = errors(check_config(folder))
    if found:
        raise ConfigError(
            f"{folder}: {len(found)} problem(s); fix them before the crew runs "
            "(claims-crew config check)\n" + format_problems(found)
        )

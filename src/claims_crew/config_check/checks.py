"""`claims-crew config check`: find the mistakes in config/*.yaml that CrewAI would pass over.

CrewAI is quiet about a crew's YAML: a missing file becomes `{}`, an unknown key is skipped,
`output_pydantic` or a guardrail function name written in YAML never takes effect, and a
misspelt `{placeholder}` fails only when a claim is run. The checks here find each of those in
agents.yaml, tasks.yaml and resolution.yaml, and check_or_raise stops a run on any error.

The package must stay free of CrewAI imports: the check runs before every crew run and on its
own, and importing the model stack would cost seconds. What it knows of CrewAI is written down
in crewai_facts.py; source.py reads the files so that every problem has a file, key and line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml

from claims_crew import paths
from claims_crew.config_check.crewai_facts import (
    AGENT_IGNORED,
    AGENT_KEYS,
    AGENT_REQUIRED,
    INTERPOLATED,
    PLACEHOLDER,
    TASK_IGNORED,
    TASK_KEYS,
    TASK_REQUIRED,
    llm_problem,
)
from claims_crew.config_check.policies import check_policy_index
from claims_crew.config_check.prices import check_prices
from claims_crew.config_check.problems import Problem, did_you_mean, format_problems, nearest
from claims_crew.config_check.resolution import check_resolution
from claims_crew.config_check.source import (
    Loaded,
    line_of,
    load_file,
    mapping_items,
    scalar_of,
)
from claims_crew.errors import ConfigError
from claims_crew.vocabulary import AGENTS, KICKOFF_INPUTS, TASK_OF, TASKS

# --- agents.yaml and tasks.yaml -----------------------------------------------------------


def _placeholders(loaded: Loaded, key: str, node: yaml.Node) -> Iterator[Problem]:
    if not isinstance(node, yaml.ScalarNode):
        return
    source = loaded.text[node.start_mark.index : node.end_mark.index]
    for match in PLACEHOLDER.finditer(source):
        word = match.group(1)
        if word in KICKOFF_INPUTS:
            continue
        guess = nearest(word, list(KICKOFF_INPUTS))
        yield Problem(
            loaded.name,
            key,
            line_of(node) + source.count("\n", 0, match.start()),
            "unknown_placeholder",
            f"{{{word}}} is not supplied by the pipeline; it supplies "
            + ", ".join(f"{{{n}}}" for n in KICKOFF_INPUTS),
            (f"did you mean {{{guess}}}? " if guess else "")
            + "a literal brace needs other text inside it, such as { word }",
        )


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
    for key, key_node, value_node in mapping_items(node):
        path = f"{entry}.{key}"
        present.add(key)
        if key in ignored:
            yield Problem(
                loaded.name,
                path,
                line_of(key_node),
                "ignored_key",
                f"{key} in YAML has no effect",
                ignored[key],
            )
        elif key not in known:
            yield Problem(
                loaded.name,
                path,
                line_of(key_node),
                "unknown_key",
                f"unknown key {key!r}: CrewAI skips it without a word",
                did_you_mean(key, known),
            )
        elif key in required and not (scalar_of(value_node) or "").strip():
            yield Problem(
                loaded.name,
                path,
                line_of(key_node),
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
    for name, line, entries in _entries_of(loaded, AGENTS, "agent", problems):
        problems.extend(
            _check_entry(loaded, name, line, entries, AGENT_KEYS, AGENT_IGNORED, AGENT_REQUIRED)
        )
        for key, _key_node, value_node in mapping_items(entries):
            if key == "llm":
                problems.extend(_check_llm(loaded, f"{name}.llm", value_node))
    return problems


def _check_llm(loaded: Loaded, path: str, node: yaml.Node) -> Iterator[Problem]:
    value = scalar_of(node)
    if value is None or node.tag != "tag:yaml.org,2002:str":
        yield Problem(loaded.name, path, line_of(node), "bad_llm", "llm must be a model string")
        return
    found = llm_problem(value)
    if found is not None:
        message, hint, severity = found
        yield Problem(loaded.name, path, line_of(node), "bad_llm", message, hint, severity)


def check_tasks(loaded: Loaded, agents: Sequence[str]) -> list[Problem]:
    problems: list[Problem] = []
    for name, line, entries in _entries_of(loaded, TASKS, "task", problems):
        problems.extend(
            _check_entry(loaded, name, line, entries, TASK_KEYS, TASK_IGNORED, TASK_REQUIRED)
        )
        for key, _key_node, value_node in mapping_items(entries):
            if key == "agent" and (agent := scalar_of(value_node)) and agent not in agents:
                problems.append(
                    Problem(
                        loaded.name,
                        f"{name}.agent",
                        line_of(value_node),
                        "unknown_agent",
                        f"{name} names agent {agent!r}, which agents.yaml does not define",
                        did_you_mean(agent, agents)
                        or f"the agents are {', '.join(agents) or 'none'}",
                    )
                )
            if key == "context":
                problems.extend(_check_context(loaded, name, value_node))
            if key == "expected_output" and name == TASK_OF["intake"]:
                problems.extend(_check_intake_sources(loaded, name, value_node))
    return problems


def _check_intake_sources(loaded: Loaded, task: str, node: yaml.Node) -> Iterator[Problem]:
    """Intake asked for no sources returns none, and then no fact it states can be trusted."""
    text = scalar_of(node) or ""
    if "sources" not in text.lower():
        yield Problem(
            loaded.name,
            f"{task}.expected_output",
            line_of(node),
            "intake_sources_dropped",
            f"{task}'s expected_output does not ask for sources: every fact intake states is "
            "then unverified, and the rules treat it as unknown",
            "ask for sources: for every fact that is not null, where the claim states it "
            "(a claim-file field, or a quote from the description or an attachment)",
            "warning",
        )


def _check_context(loaded: Loaded, task: str, node: yaml.Node) -> Iterator[Problem]:
    items = node.value if isinstance(node, yaml.SequenceNode) else None
    if items is None:
        yield Problem(
            loaded.name,
            f"{task}.context",
            line_of(node),
            "bad_context",
            "context must be a list of task names",
            "e.g. context: [intake_task]",
        )
        return
    order = list(loaded.data)
    for item in items:
        ref = scalar_of(item)
        if ref in loaded.data and ref != task and order.index(ref) > order.index(task):
            # CrewBase builds a context task while reading the task that names it; a task
            # further down still has its agent as a bare name then, and the crew fails to build.
            yield Problem(
                loaded.name,
                f"{task}.context",
                line_of(item),
                "context_order",
                f"{task}'s context names {ref!r}, which comes later in tasks.yaml; "
                "CrewAI fails to build the crew",
                f"move {ref} above {task}",
            )
        elif ref not in loaded.data or ref == task:
            yield Problem(
                loaded.name,
                f"{task}.context",
                line_of(item),
                "unknown_task",
                f"{task}'s context names {ref!r}, which is not another task in tasks.yaml",
                did_you_mean(str(ref), [t for t in loaded.data if t != task]),
            )


def _entries_of(
    loaded: Loaded, expected: tuple[str, ...], what: str, problems: list[Problem]
) -> list[tuple[str, int, yaml.MappingNode]]:
    """The well-formed entries; names crew.py does not define, and absent ones, are reported."""
    # `expected` is vocabulary's AGENTS or TASKS: crew.py has an @agent or @task method for each,
    # so an entry under any other name is never read, and a missing one stops the crew building.
    good: list[tuple[str, int, yaml.MappingNode]] = []
    for name, key_node, value_node in mapping_items(loaded.root):
        if name not in expected:
            problems.append(
                Problem(
                    loaded.name,
                    name,
                    line_of(key_node),
                    f"unknown_{what}",
                    f"crew.py defines no {what} {name!r}; CrewAI never reads this entry",
                    did_you_mean(name, expected) or f"the crew's {what}s: {', '.join(expected)}",
                )
            )
        elif not isinstance(value_node, yaml.MappingNode):
            problems.append(
                Problem(
                    loaded.name,
                    name,
                    line_of(key_node),
                    "not_a_mapping",
                    f"{what} {name!r} must be a mapping of settings",
                )
            )
        else:
            good.append((name, line_of(key_node), value_node))
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


# --- the whole folder ---------------------------------------------------------------------

FILES: tuple[str, ...] = ("agents.yaml", "tasks.yaml", "resolution.yaml", "prices.yaml")


def check_config(config_dir: Path | None = None, policies_dir: Path | None = None) -> list[Problem]:
    """Every problem in config/agents.yaml, tasks.yaml, resolution.yaml and, when there,
    prices.yaml, file by file."""
    folder = config_dir if config_dir is not None else paths.config_dir()
    problems: list[Problem] = []
    agents = load_file(folder, "agents.yaml", problems)
    if agents is not None:
        problems.extend(check_agents(agents))
    tasks = load_file(folder, "tasks.yaml", problems)
    if tasks is not None:
        # With agents.yaml unreadable, compare against the crew's own names, not against none.
        names = list(agents.data) if agents is not None else list(AGENTS)
        problems.extend(check_tasks(tasks, names))
    resolution = load_file(folder, "resolution.yaml", problems)
    if resolution is not None:
        problems.extend(check_resolution(resolution))
    if (folder / "prices.yaml").exists():  # optional: without it no cost is shown
        prices = load_file(folder, "prices.yaml", problems)
        if prices is not None:
            problems.extend(check_prices(prices))
    ordered = sorted(problems, key=lambda p: (FILES.index(p.file), p.line or 0))
    # policies/index.yaml last: its kind corrections decide claims as much as the config does.
    return ordered + check_policy_index(policies_dir or paths.policies_dir())


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

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

from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path

import yaml

from claims_crew import settings
from claims_crew.config_check.clocks import check_clocks
from claims_crew.config_check.crewai_facts import (
    AGENT_IGNORED,
    AGENT_KEYS,
    AGENT_REQUIRED,
    INTERPOLATED,
    MODEL_SETTINGS,
    PLACEHOLDER,
    TASK_IGNORED,
    TASK_KEYS,
    TASK_REFUSED,
    TASK_REQUIRED,
    llm_problem,
    model_setting_hint,
)
from claims_crew.config_check.desk import check_desk
from claims_crew.config_check.issued import opening_pdfs
from claims_crew.config_check.letters import check_letters
from claims_crew.config_check.policies import check_policy_index
from claims_crew.config_check.prices import check_prices
from claims_crew.config_check.problems import Problem, did_you_mean, format_problems, nearest
from claims_crew.config_check.reason_codes import check_reason_codes
from claims_crew.config_check.resolution import check_resolution
from claims_crew.config_check.source import Loaded, line_of, load_file, mapping_items, scalar_of
from claims_crew.config_check.webhooks import check_webhooks
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
    elsewhere: frozenset[str] = frozenset(),
) -> Iterator[Problem]:
    """One entry's keys: ignored, unknown (`elsewhere`: keys that belong to something else, such
    as the model's settings in an agent), empty or missing."""
    present = [key for key, _, _ in mapping_items(node)]
    for key, key_node, value_node in mapping_items(node):
        path = f"{entry}.{key}"
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
                _unknown_key_hint(key, known | set(ignored) | elsewhere, present, elsewhere),
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


def _unknown_key_hint(
    key: str, choices: Collection[str], present: list[str], elsewhere: frozenset[str]
) -> str:
    """The nearest key not already in the entry; for a model's setting, where it belongs."""
    if key in elsewhere:
        return model_setting_hint(key)
    guess = nearest(key, [c for c in choices if c not in present])
    if guess in elsewhere:
        return f"did you mean {guess!r}? {model_setting_hint(guess)}"
    return did_you_mean(key, choices, present, "a key this entry already has")


def check_agents(loaded: Loaded) -> list[Problem]:
    problems: list[Problem] = []
    for name, line, entries in _entries_of(loaded, AGENTS, "agent", problems):
        problems.extend(
            _check_entry(
                loaded,
                name,
                line,
                entries,
                AGENT_KEYS,
                AGENT_IGNORED,
                AGENT_REQUIRED,
                MODEL_SETTINGS,
            )
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
            if key in TASK_REFUSED:
                problems.extend(_refused(loaded, name, key, value_node))
            if key == "context":
                problems.extend(_check_context(loaded, name, value_node))
            if key == "expected_output" and name == TASK_OF["intake"]:
                problems.extend(_check_intake_sources(loaded, name, value_node))
    return problems


def _refused(loaded: Loaded, task: str, key: str, node: yaml.Node) -> Iterator[Problem]:
    """A key CrewAI honours that stalls a run or writes claim data where it should not; left
    out, null, or at its harmless value (human_input: false) it passes."""
    harmless, message, hint = TASK_REFUSED[key]
    value = loaded.data[task][key]  # the value CrewAI reads: the last, if written twice
    if value is None or value == harmless:
        return
    yield Problem(loaded.name, f"{task}.{key}", line_of(node), "refused_key", message, hint)


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
    listed = [scalar_of(item) for item in items]
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
                # Only a task above this one can be its context.
                did_you_mean(
                    str(ref),
                    order[: order.index(task)],
                    [t for t in listed if t != ref and t is not None],
                    "a task this context already lists",
                ),
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
                    _entry_hint(name, expected, list(loaded.data), what),
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


def _entry_hint(name: str, expected: tuple[str, ...], present: list[str], what: str) -> str:
    """The nearest entry crew.py reads that the file lacks; never one it already has."""
    missing = [n for n in expected if n not in present]
    hint = did_you_mean(name, expected, present, f"one of the {what}s the file already has")
    if hint or not missing:
        return hint or (
            f"every {what} crew.py builds is already here: remove this entry, or give crew.py "
            f"an @{what} method of that name"
        )
    return f"the file lacks {', '.join(missing)}"


# --- the whole folder ---------------------------------------------------------------------

FILES: tuple[str, ...] = (
    "agents.yaml",
    "tasks.yaml",
    "resolution.yaml",
    "prices.yaml",
    "desk.yaml",
    "clocks.yaml",
    "reason_codes.yaml",
    "webhooks.yaml",
)


def check_config(
    config_dir: Path | None = None, policies_dir: Path | None = None, schedules: bool = True
) -> list[Problem]:
    """Every problem in config/agents.yaml, tasks.yaml, resolution.yaml and, when there,
    prices.yaml and reason_codes.yaml, file by file; then policies/index.yaml and, unless
    `schedules` is false, what opens the PDFs: schedules and endorsements' changes."""
    folder = config_dir if config_dir is not None else settings.config_dir()
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
    # Optional. Without prices.yaml no cost is shown; desk.yaml, the desk's defaults run;
    # clocks.yaml, the NAIC defaults; reason_codes.yaml, no external code is given;
    # webhooks.yaml, no webhook is sent.
    optional: dict[str, Callable[[Loaded], list[Problem]]] = {
        "prices.yaml": check_prices,
        "desk.yaml": check_desk,
        "clocks.yaml": check_clocks,
        "reason_codes.yaml": lambda codes: check_reason_codes(codes, folder),
        "webhooks.yaml": check_webhooks,
    }
    for name, check in optional.items():
        if (folder / name).exists() and (loaded := load_file(folder, name, problems)) is not None:
            problems.extend(check(loaded))
    ordered = sorted(problems, key=lambda p: (FILES.index(p.file), p.line or 0))
    in_config = [p.placed(folder) for p in ordered + check_letters(folder)]
    # policies/index.yaml last: its kind corrections decide claims as much as the config does.
    policies = policies_dir or settings.policies_dir()
    of_policies = check_policy_index(policies) + (opening_pdfs(policies) if schedules else [])
    return in_config + [p.placed(policies.parent) for p in of_policies]


def errors(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def check_or_raise(config_dir: Path | None = None) -> None:
    """Stop a run before any model call when the config has an error; warnings pass."""
    folder = config_dir if config_dir is not None else settings.config_dir()
    # A schedule's problem does not stop the run: it costs only the amounts of that policy's
    # claims, which then have none and say why (resolver/reread.py), not their decisions.
    if found := errors(check_config(folder, schedules=False)):
        raise ConfigError(
            f"{folder}: {len(found)} problem(s); fix them before the crew runs "
            "(claims-crew config check)\n" + format_problems(found)
        )

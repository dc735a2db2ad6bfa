"""The YAML checker for config/*.yaml: every problem with its file, key and line (no CrewAI).

checks.py        the checks of agents.yaml and tasks.yaml, the folder as a whole; check_or_raise
resolution.py    the checks of resolution.yaml: the resolver's own validation, placed, and warnings
prices.py        the checks of prices.yaml (optional): the price table's validation, placed
crewai_facts.py  what the check knows of CrewAI: its YAML keys, providers and model names
source.py        the files read as PyYAML nodes, for lines and duplicate keys
policies.py      the checks of policies/index.yaml: entries, and kind corrections against the tree
issued.py        the checks of policies/issued/ and of each endorsement's changes against its form
webhooks.py      the checks of webhooks.yaml (optional): endpoints, events, secrets' variables
problems.py      Problem, the one type every check reports through
"""

from claims_crew.config_check.checks import check_config, check_or_raise, errors
from claims_crew.config_check.crewai_facts import (
    AGENT_IGNORED,
    AGENT_KEYS,
    MODEL_SETTINGS,
    PROVIDER_ALIASES,
    TASK_IGNORED,
    TASK_KEYS,
    TASK_REFUSED,
    llm_problem,
)
from claims_crew.config_check.problems import Problem, format_problems

__all__ = [
    "AGENT_IGNORED",
    "AGENT_KEYS",
    "MODEL_SETTINGS",
    "PROVIDER_ALIASES",
    "TASK_IGNORED",
    "TASK_KEYS",
    "TASK_REFUSED",
    "Problem",
    "check_config",
    "check_or_raise",
    "errors",
    "format_problems",
    "llm_problem",
]

"""The YAML checker for config/*.yaml: every problem with its file, key and line (no CrewAI)."""

from claims_crew.config_check.checks import (
    AGENT_IGNORED,
    AGENT_KEYS,
    CREW_AGENTS,
    CREW_TASKS,
    PIPELINE_INPUTS,
    PROVIDER_ALIASES,
    TASK_IGNORED,
    TASK_KEYS,
    Problem,
    check_config,
    check_or_raise,
    errors,
    format_problems,
    llm_problem,
)

__all__ = [
    "AGENT_IGNORED",
    "AGENT_KEYS",
    "CREW_AGENTS",
    "CREW_TASKS",
    "PIPELINE_INPUTS",
    "PROVIDER_ALIASES",
    "TASK_IGNORED",
    "TASK_KEYS",
    "Problem",
    "check_config",
    "check_or_raise",
    "errors",
    "format_problems",
    "llm_problem",
]

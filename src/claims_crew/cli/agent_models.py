"""`config check`'s table of which model and endpoint each agent gets (llms/endpoints.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table
from claims_crew.errors import ConfigError
from claims_crew.llms.endpoints import AgentModel, agent_models
from claims_crew.llms.providers.in_process import LOCAL_MODEL
from claims_crew.llms.threads import ThreadChoice, local_threads
from claims_crew.settings.yaml_files import read_document


def configured_agents(folder: Path) -> list[AgentModel]:
    """Every agent in agents.yaml with its model; an unreadable file shows none (the config
    check has named its problem already)."""
    try:
        loaded: Any = read_document(folder / "agents.yaml").data
    except (OSError, ConfigError):  # not there, unreadable, or not YAML
        return []
    if not isinstance(loaded, dict):
        return []
    own = {
        str(name): (str(entry["llm"]) if isinstance(entry, dict) and entry.get("llm") else None)
        for name, entry in loaded.items()
    }
    return agent_models(own)


def models_table(shown: list[AgentModel]) -> Table:
    table = Table(title="Models: each agent's, and where its calls go")
    for column in ("agent", "model", "endpoint", "key from"):
        # Folded where it must, never cut: a half-shown key variable or endpoint misleads.
        table.add_column(column, overflow="fold", whole_words=column == "endpoint")
    for row in shown:
        key = row.key_variable or "-"
        table.add_row(plain(row.agent), plain(row.model), plain(row.endpoint), plain(key))
    return table


def model_line(row: AgentModel) -> str:
    """One agent's model on one whole line, for a pipe or a CI log."""
    key = row.key_variable or "-"
    return f"model {row.agent}: {row.model} at {row.endpoint} (key from {key})"


def local_threads_now(shown: list[AgentModel]) -> ThreadChoice | None:
    """The local model's threads if it loaded now, when an agent runs on it; else None."""
    return local_threads() if any(row.model == LOCAL_MODEL for row in shown) else None


def local_threads_line(choice: ThreadChoice) -> str:
    """What the local model would compute with: a count chosen from the load is chosen again
    when the model loads, so this is only what it would be now."""
    now = "" if choice.by_setting else " if it loaded now"
    return f"local model: {choice.describe()}{now}"

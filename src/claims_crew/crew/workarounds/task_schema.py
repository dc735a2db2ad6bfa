"""A task from its YAML entry, with its output schema set in Python.

No upstream issue; CrewAI behaviour (1.15.x): `output_pydantic` written in tasks.yaml never takes
effect. `Task(config=...)` drops a class name given as text (its validator only takes a class),
and CrewBase maps the name only to an `@output_pydantic` method, failing with a KeyError
otherwise. So the schema is passed as a class here, and `config check` refuses the YAML key
(config_check/crewai_facts.py).
"""

from __future__ import annotations

from typing import Any

from crewai import Task
from pydantic import BaseModel

from claims_crew.crew.workarounds.strict_converter import StrictConverter


def schema_task(config: dict[str, Any], schema: type[BaseModel]) -> Task:
    """The task `config` describes (description, expected_output and the rest), answering in
    `schema`, validated by StrictConverter."""
    # description and expected_output come in `config`, which mypy cannot see.
    return Task(config=config, output_pydantic=schema, converter_cls=StrictConverter)  # type: ignore[call-arg]

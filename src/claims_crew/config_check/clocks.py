"""The checks of config/clocks.yaml (optional): the desk's deadline table, each mistake at its key
and line, validated by the model the desk loads it with (desk/clocks.py)."""

from __future__ import annotations

from dataclasses import replace

from pydantic import ValidationError

from claims_crew.config_check.problems import Problem
from claims_crew.config_check.source import Loaded, locate


def check_clocks(loaded: Loaded) -> list[Problem]:
    from claims_crew.desk.clocks import ClockTable

    try:
        table = ClockTable.model_validate(loaded.data or {})
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            path, line = locate(loaded.root, list(err["loc"]))
            problems.append(
                Problem(
                    loaded.name,
                    path,
                    line,
                    "invalid_clock",
                    str(err["msg"]),
                    "each row is {acknowledge_days: DAYS, decide_days: DAYS}; name the "
                    "table's source",
                )
            )
        return problems
    found = []
    for text in table.problems():
        name = text.partition(":")[0]
        key = "default" if name == "default" else f"jurisdictions.{name}"
        path, line = locate(loaded.root, key.split("."))
        problem = Problem(loaded.name, path, line, "decides_before_acknowledging", text)
        found.append(replace(problem, severity="warning"))
    return found

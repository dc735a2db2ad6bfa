"""The checks of config/clocks.yaml (optional): the desk's deadline table, each mistake at its key
and line, validated by the model the desk loads it with (desk/clocks.py)."""

from __future__ import annotations

from dataclasses import replace

from claims_crew.config_check.problems import Problem
from claims_crew.config_check.source import Loaded, locate


def check_clocks(loaded: Loaded) -> list[Problem]:
    from claims_crew.desk.clocks import ClockTable

    checked = loaded.check(ClockTable)
    if checked.value is None:
        hint = "each row is {acknowledge_days: DAYS, decide_days: DAYS}; name the table's source"
        return [
            Problem(loaded.name, e.key, e.line, "invalid_clock", e.msg, hint)
            for e in checked.errors
        ]
    table = checked.value
    found = []
    for text in table.problems():
        name = text.partition(":")[0]
        key = "default" if name == "default" else f"jurisdictions.{name}"
        path, line = locate(loaded.root, key.split("."))
        problem = Problem(loaded.name, path, line, "decides_before_acknowledging", text)
        found.append(replace(problem, severity="warning"))
    return found

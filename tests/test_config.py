"""The shipped agent and task YAML has the fields CrewAI needs and tasks name real agents."""

from __future__ import annotations

import yaml

from tests.conftest import ROOT


def test_agents_and_tasks_yaml_are_complete() -> None:
    agents = yaml.safe_load((ROOT / "config" / "agents.yaml").read_text(encoding="utf-8"))
    tasks = yaml.safe_load((ROOT / "config" / "tasks.yaml").read_text(encoding="utf-8"))
    assert set(agents) == {"intake", "policy", "fraud", "adjudicator"}
    assert set(tasks) == {
        "intake_task",
        "policy_task",
        "fraud_task",
        "adjudicate_task",
        "targeted_question_task",
        "policy_rebuttal_task",
        "fraud_rebuttal_task",
    }
    for agent in agents.values():
        assert all(agent[field].strip() for field in ("role", "goal", "backstory"))
    for task in tasks.values():
        assert task["agent"] in agents
        assert task["description"].strip() and task["expected_output"].strip()
        assert "output_pydantic" not in task  # CrewAI ignores it in YAML; it belongs in Python

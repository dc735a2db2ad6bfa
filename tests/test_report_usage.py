"""`claims-crew report`: tokens and cost by task, cost per decision, and time per level.

Over the thirteen known decisions (tests/support/report.py; test_report.py lists them). Each of
the twelve claims that reached the agents ran intake (1 call, 80 prompt + 20 completion tokens),
policy (2 calls, 160 + 40) and fraud (1 call, 120 + 30); R07 and R09 also asked the adjudicator
(1 call, 40 + 10, on the model `scripted-judge`). R13 was escalated before any model ran.

At PRICES, a claim's three tasks cost 360 × 10,000 + 90 × 40,000 per million = 3.6 + 3.6 = 7.2,
and an adjudicator call 40 × 100,000 + 10 × 100,000 per million = 4 + 1 = 5. Decided with no
person: R01, R02 (ACCEPTED), R03 (PREFERRED), R07 (ADJUDICATED). Of those, R03 and R07 settled
a conflict (their agents' answers differed).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.policy.library import PolicyLibrary
from claims_crew.prices import PriceTable
from claims_crew.report import build_report, load_rows
from claims_crew.report.html import render
from claims_crew.store import Store
from tests.support.report import KNOWN, PRICES, START, known_store, loaded_claim, make_record

# The report's one read (store/report_query.py) on each engine, figure for figure.
pytestmark = pytest.mark.usefixtures("engine")


def cost(figure: float | None, total: float, claims: int, unpriced: int = 0) -> dict[str, Any]:
    return {
        "figure": None if figure is None else pytest.approx(figure),
        "total": pytest.approx(total),
        "claims": claims,
        "unpriced": unpriced,
    }


def report_json(config: Path | None = None) -> dict[str, Any]:
    result = CliRunner().invoke(
        main, ["report", "--json"], env={"CLAIMS_CREW_CONFIG": str(config)} if config else {}
    )
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def config_with_prices(tmp_path: Path, prices: dict[str, Any]) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "prices.yaml").write_text(yaml.safe_dump(prices), encoding="utf-8")
    return folder


@pytest.fixture
def known(sample_library: PolicyLibrary, tmp_path: Path) -> Store:
    return known_store(sample_library, tmp_path / "claims")


def test_tokens_and_cost_by_task_and_per_decision(known: Store, tmp_path: Path) -> None:
    costs = report_json(config_with_prices(tmp_path, PRICES))["cost"]
    assert costs["currency"] == "EUR"
    by_task = {t["task"]: t for t in costs["by_task"]}
    assert list(by_task) == ["intake_task", "policy_task", "fraud_task", "adjudicate_task"]
    assert {k: v for k, v in by_task["policy_task"].items() if k != "cost"} == {
        "task": "policy_task",
        "claims": 12,
        "calls": 24,
        "prompt_tokens": 1920,
        "completion_tokens": 480,
    }
    assert by_task["intake_task"]["cost"] == cost(1.6, 19.2, 12)
    assert by_task["policy_task"]["cost"] == cost(3.2, 38.4, 12)
    assert by_task["fraud_task"]["cost"] == cost(2.4, 28.8, 12)
    assert by_task["adjudicate_task"]["cost"] == cost(5, 10, 2)
    # R13 ran no model: it costs nothing, and still counts as a claim.
    assert costs["per_claim"] == cost(96.4 / 13, 96.4, 13)
    assert costs["per_automatic_decision"] == cost(33.8 / 4, 33.8, 4)
    assert costs["resolved_conflict_outcomes"] == ["PREFERRED", "ADJUDICATED"]
    assert costs["per_resolved_conflict"] == cost(19.4 / 2, 19.4, 2)
    assert costs["unpriced_models"] == []


def test_a_model_without_a_price_leaves_its_claims_out_instead_of_guessing(
    known: Store, tmp_path: Path
) -> None:
    # A provider prefix in the table matches the bare name a client keeps.
    only_agents = {"models": {"openai/scripted": PRICES["models"]["scripted"]}}
    costs = report_json(config_with_prices(tmp_path, only_agents))["cost"]
    assert costs["currency"] == "USD"
    assert costs["unpriced_models"] == ["scripted-judge"]
    # R07 and R09 asked the adjudicator: left out. Ten claims at 7.2, and R13 at 0.
    assert costs["per_claim"] == cost(72 / 11, 72, 11, unpriced=2)
    assert costs["per_resolved_conflict"] == cost(7.2, 7.2, 1, unpriced=1)
    adjudicate = next(t for t in costs["by_task"] if t["task"] == "adjudicate_task")
    assert adjudicate["cost"] == cost(None, 0, 0, unpriced=2)


def test_no_price_table_no_cost(known: Store) -> None:
    costs = report_json()["cost"]
    assert costs["currency"] is None
    assert costs["per_claim"] is None and costs["per_automatic_decision"] is None
    assert costs["per_resolved_conflict"] is None
    assert all(t["cost"] is None for t in costs["by_task"])
    assert sum(t["prompt_tokens"] + t["completion_tokens"] for t in costs["by_task"]) == 5500
    shown = CliRunner().invoke(main, ["report"])
    assert "No cost shown: no price table" in shown.output


def test_time_per_level_from_the_stage_stamps(known: Store) -> None:
    levels = {t["level"]: t for t in report_json()["time_per_level"]}
    assert list(levels) == [
        "crew",
        "resolver",
        "targeted_evidence",
        "debate",
        "adjudicator",
        "person",
    ]
    assert levels["crew"] == {
        "level": "crew",
        "claims": 12,
        "mean": 1.5,
        "median": 1.5,
        "longest": 1.5,
    }
    assert levels["resolver"]["claims"] == 12 and levels["resolver"]["mean"] == 0.25
    assert levels["adjudicator"]["claims"] == 2 and levels["adjudicator"]["longest"] == 0.25
    # Seven escalations were reviewed (R04, R05, R06, R08, R10, R11, R12).
    assert levels["person"]["claims"] == 7


def test_a_persons_wait_runs_from_the_escalation_to_the_review(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    now = [START]

    def clock() -> datetime:
        return now[0]

    store = Store(clock=clock)
    store.add_reviewer("ana")
    for claim_id in ("R04", "R05", "R01"):
        intake, policy, fraud, *_ = KNOWN[claim_id]
        loaded = loaded_claim(tmp_path / "claims", claim_id)
        store.record(make_record(sample_library, loaded, intake, policy, fraud), None, loaded)
    now[0] = START + timedelta(minutes=30)
    store.decide("R05", "not_covered", "the joint had rusted through", "ana", rules=DeskRules())
    now[0] = START + timedelta(minutes=90)
    store.decide("R04", "covered", "sudden, by the plumber's note", "ana", rules=DeskRules())

    person = build_report(load_rows(store)).time_per_level[-1]
    assert (person.level, person.claims) == ("person", 2)
    assert (person.mean, person.median, person.longest) == (3600, 3600, 5400)


def test_the_terminal_and_the_page_show_them(
    known: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config_with_prices(tmp_path, PRICES)))
    monkeypatch.setenv("COLUMNS", "200")  # rich's width, so that no label is folded
    shown = CliRunner().invoke(main, ["report"])
    assert shown.exit_code == 0, shown.output
    for text in (
        "Tokens and cost by task",
        "per resolved conflict (PREFERRED or ADJUDICATED)",
        "Time to decision per level",
        "adjudicate_task",
    ):
        assert text in shown.output
    line = next(x for x in shown.output.splitlines() if "per automatic decision" in x)
    assert "8.4500 EUR" in line and "33.8000 EUR" in line

    page = render(build_report(load_rows(known), prices=PriceTable.model_validate(PRICES)))
    assert "Tokens, cost and time per level" in page
    assert "<td>per resolved conflict (PREFERRED or ADJUDICATED)</td>" in page
    assert '<td class="n">9.7000</td>' in page

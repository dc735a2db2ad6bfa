"""A covered theft claim (C-1044) scripted through the real crew, and a config whose automatic
authority limit is set low: the amount and over_authority tests share them."""

from __future__ import annotations

from pathlib import Path

from claims_crew.llms.scripted import final, lookup
from tests.support.crew import Script
from tests.support.paths import ROOT

THEFT = "theft or attempted theft involving forcible and violent entry"
THEFT_FACTS = {
    "loss_type": "theft",
    "cause": "burglars forced the back door",
    "date_of_loss": "2025-09-14",
    "damage_start_date": None,
    "amount_claimed": 2600,
    "unknowns": ["damage_start_date"],
    "sources": {
        "loss_type": {"where": "description", "quote": "Burglars forced the back door"},
        "cause": {"where": "description", "quote": "Burglars forced the back door"},
        "date_of_loss": {"where": "date_of_loss"},
        "amount_claimed": {"where": "amount"},
    },
}


def theft_script() -> Script:
    answer = {
        "answer": "covered",
        "evidence": [{"clause_id": "4.4(a)", "quote": THEFT}],
        "facts_relied_on": ["cause"],
        "rationale": "Forcible entry: 4.4(a).",
    }
    return Script(
        intake=[final(THEFT_FACTS)],
        policy=[lookup("HM-HOME-001", "4.4(a)"), final({**answer, "confidence": 0.95})],
        fraud=[lookup("HM-HOME-001", "4.4(a)"), final({**answer, "confidence": 0.9})],
    )


def config_with_limit(tmp_path: Path, gbp: str) -> Path:
    config = tmp_path / "config"
    config.mkdir()
    for name in ("agents.yaml", "tasks.yaml"):
        (config / name).write_text((ROOT / "config" / name).read_text(encoding="utf-8"))
    rules = (ROOT / "config" / "resolution.yaml").read_text(encoding="utf-8")
    assert "automatic_limit: {GBP: 25000," in rules
    (config / "resolution.yaml").write_text(
        rules.replace("automatic_limit: {GBP: 25000,", f"automatic_limit: {{GBP: {gbp},")
    )
    return config

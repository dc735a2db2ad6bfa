"""One bounded debate round before the adjudicator: each side sees the other's claim once."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver.config import parse_config
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    KNOWN_START,
    POLICY_COVERED,
    Script,
    water_claim_saying_when,
)
from tests.support.paths import ROOT

RULING = {
    "choice": "policy",
    "reason": "A leaking joint found the day after is a sudden discharge; 7.1 needs weeks.",
    "evidence": ["4.2(b)"],
}
# Shown policy's claim, fraud concedes: the leak began the morning the ceiling came down.
FRAUD_CONCEDES = {
    "answer": "covered",
    "confidence": 0.9,
    "evidence": [{"clause_id": "4.2(b)", "quote": "sudden and accidental discharge of water"}],
    "facts_relied_on": ["cause", "damage_start_date"],
    "rationale": "The leak began the morning of the loss: a sudden discharge, not seepage.",
}


def debate_config(tmp_path: Path, rounds: int) -> Path:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    rules = (config / "resolution.yaml").read_text(encoding="utf-8")
    switch = re.compile(r"^debate:\n  rounds: \d+\n", re.MULTILINE)
    assert len(switch.findall(rules)) == 1
    (config / "resolution.yaml").write_text(switch.sub(f"debate:\n  rounds: {rounds}\n", rules))
    return config


def dispute_script(fraud_second: list[str], policy_second: list[str]) -> Script:
    """C-1042 with the start date stated: both hold, facts agreed, readings differ."""
    return Script(
        intake=[final(KNOWN_START)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED), *policy_second],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED), *fraud_second],
        adjudicator=[final(RULING)],
    )


def run(library: PolicyLibrary, script: Script, tmp_path: Path, rounds: int, store: Store) -> None:
    loaded = load_claim(water_claim_saying_when(tmp_path / "inbox"))
    settings = build_context(
        library=library, llm_for=script, store=store, config_dir=debate_config(tmp_path, rounds)
    )
    record = review_claim(loaded, settings)
    store.record(record, None, loaded)


def test_a_debate_round_that_changes_an_answer(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = dispute_script(
        fraud_second=[lookup("HM-HOME-001", "4.2(b)"), final(FRAUD_CONCEDES)],
        policy_second=[final(POLICY_COVERED)],
    )
    store = Store()
    run(sample_library, script, tmp_path, 1, store)
    record = store.claim_record("C-1042")
    assert record is not None and record.resolution is not None, record
    resolution = record.resolution
    # Both now answer covered on evidence that re-reads and that the tool returned to fraud in
    # its rebuttal: the rules accept it, and the adjudicator is never asked.
    assert (resolution.outcome, resolution.rule, resolution.answer) == (
        "ACCEPTED",
        "agree",
        "covered",
    )
    assert script("adjudicator").calls == []
    debate = resolution.debate
    assert debate is not None and debate.changed == ["fraud"]
    assert (debate.before.outcome, debate.before.rule) == ("ADJUDICATION_REQUIRED", "dispute")
    # Each side was shown the other's claim, once; the record keeps both rounds.
    assert '"answer": "covered"' in debate.shown["fraud"] and "7.1" in debate.shown["policy"]
    assert "sudden and accidental" in json.dumps(script("fraud").calls[2])
    assert record.fraud is not None and getattr(record.fraud, "answer", None) == "not_covered"
    revised = debate.revised["fraud"]
    assert getattr(revised, "answer", None) == "covered"
    assert getattr(revised, "source_checked", False) is True
    assert record.model_calls["fraud_rebuttal_task"] == 2
    assert record.model_calls["policy_rebuttal_task"] == 1
    assert "adjudicate_task" not in record.model_calls
    assert list(record.stages) == ["crew", "resolver", "debate"]

    report = json.loads(CliRunner().invoke(main, ["report", "--json"]).output)["overall"]
    assert report["debate_rounds"] == {"figure": 1.0, "count": 1, "denominator": 1}
    assert report["debate_changed"] == {"figure": 1.0, "count": 1, "denominator": 1}
    assert report["debate_calls"]["count"] == 3 and report["debate_calls"]["denominator"] == 1
    tokens = sum(record.tokens[t] for t in ("policy_rebuttal_task", "fraud_rebuttal_task"))
    assert report["debate_tokens"]["count"] == tokens > 0


def test_a_round_that_changes_nothing_goes_on_to_the_adjudicator(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = dispute_script(
        fraud_second=[final(FRAUD_EXCLUDED)], policy_second=["I stand by my answer."]
    )
    store = Store()
    run(sample_library, script, tmp_path, 1, store)
    record = store.claim_record("C-1042")
    assert record is not None and record.resolution is not None
    resolution = record.resolution
    assert (resolution.outcome, resolution.winner) == ("ADJUDICATED", "policy")
    assert resolution.debate is not None and resolution.debate.changed == []
    # An unreadable second answer is kept, and its side stands on its first.
    assert resolution.debate.revised["policy"].kind == "parse_error"  # type: ignore[union-attr]
    assert len(script("adjudicator").calls) == 1
    report = json.loads(CliRunner().invoke(main, ["report", "--json"]).output)["overall"]
    assert report["debate_changed"] == {"figure": 0.0, "count": 0, "denominator": 1}


def test_no_round_by_default(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    script = dispute_script(fraud_second=[final(FRAUD_CONCEDES)], policy_second=[])
    store = Store()
    run(sample_library, script, tmp_path, 0, store)
    record = store.claim_record("C-1042")
    assert record is not None and record.resolution is not None
    assert record.resolution.debate is None and record.resolution.outcome == "ADJUDICATED"
    assert "fraud_rebuttal_task" not in record.model_calls
    assert len(script("fraud").calls) == 2
    assert parse_config({}).debate.rounds == 0


@pytest.mark.parametrize("rounds", [2, -1, "one"])
def test_more_than_one_round_is_refused(rounds: object) -> None:
    with pytest.raises(ConfigError, match="debate"):
        parse_config({"debate": {"rounds": rounds}})

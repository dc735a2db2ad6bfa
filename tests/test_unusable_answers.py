"""An answer's meaningless parts (a clause id of punctuation, a fact that is its type's name) are
dropped where the answer is parsed, with one line in the trail saying so: through the real crew
with a scripted model, then `review show` as a person reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.llms.scripted import final
from claims_crew.models import Claim, IntakeFacts, parse_claim, parse_intake
from claims_crew.vocabulary import DEFAULT_ANSWERS
from tests.support.crew import FRAUD_EXCLUDED, INTAKE_WATER, POLICY_COVERED, Script
from tests.support.store import water_loaded

# What a small model writes when it copies the schema rather than filling it in.
JUNK_INTAKE = {**INTAKE_WATER, "loss_type": "string"}
JUNK_POLICY = {
    **POLICY_COVERED,
    "evidence": [{"clause_id": ",", "quote": ""}, {"clause_id": ",,", "quote": "string"}],
}


def test_the_parser_drops_what_means_nothing_and_says_why() -> None:
    facts = parse_intake(json.dumps({**JUNK_INTAKE, "unusable": ["the model's own word"]}))
    assert isinstance(facts, IntakeFacts)
    assert facts.loss_type is None and "loss_type" in facts.unknowns
    assert facts.unusable == ["loss_type 'string' is not a value"]
    mixed = {**JUNK_POLICY, "evidence": [*JUNK_POLICY["evidence"], POLICY_COVERED["evidence"][0]]}
    claim = parse_claim(json.dumps(mixed), DEFAULT_ANSWERS)
    assert isinstance(claim, Claim)
    assert [e.clause_id for e in claim.evidence] == ["4.2(b)"]
    assert claim.unusable == ["clause id ',' is not an id", "clause id ',,' is not an id"]


@pytest.fixture
def shown(engine: str, tmp_path: Path) -> tuple[dict[str, Any], str]:
    """C-1042 reviewed by the real crew on junk answers, and `review show` of it: json, text."""
    inbox = tmp_path / "inbox"
    water_loaded(inbox, "C-1042")
    script = Script(
        intake=[final(JUNK_INTAKE)], policy=[final(JUNK_POLICY)], fraud=[final(FRAUD_EXCLUDED)]
    )
    assert review_inbox(inbox, 1, Console(record=True, width=200), llm_for=script) == 0
    as_json = CliRunner().invoke(main, ["review", "show", "C-1042", "--json"])
    text = CliRunner().invoke(main, ["review", "show", "C-1042"])
    assert as_json.exit_code == 0 and text.exit_code == 0, (as_json.output, text.output)
    return json.loads(as_json.stdout), text.output


@pytest.mark.slow  # the crew runs once on each store
def test_review_show_never_shows_the_junk_and_the_trail_says_once_why(
    shown: tuple[dict[str, Any], str],
) -> None:
    data, text = shown
    policy = data["sides"]["policy"]
    # Every clause it cited was junk: an answer with no evidence, as the resolver treats one.
    assert policy["clauses"] == [] and policy["reason_codes"] == ["no_evidence"]
    assert not policy["holds"]
    loss_type = next(f for f in data["fact_checks"] if f["name"] == "loss_type")
    assert loss_type["status"] == "unknown" and loss_type["value"] is None
    said = [s["detail"] for s in data["trail"] if "unusable" in s["detail"]]
    assert said == [
        "the model's answer was unusable in part, dropped: intake: loss_type 'string' is not a "
        "value; policy: clause id ',' is not an id, clause id ',,' is not an id"
    ]
    flat = " ".join(text.split())
    assert "clause_not_found" not in flat and "intake said string" not in flat
    assert "clause not found" not in flat

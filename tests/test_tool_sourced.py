"""No automatic decision without looked-up evidence, through the real crew with a scripted model.

Every policy_lookup call fails because the model names a tool the agents do not have; both
agents then answer "covered" at 0.9, citing a real grant clause quoted correctly from memory.
The quotes re-read as verified, so only the tool ledger tells these answers from looked-up ones.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.llms.scripted import final
from claims_crew.models import Claim
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from tests.support.crew import INTAKE_WATER, Script, settings
from tests.support.paths import ROOT

INBOX = ROOT / "claims" / "inbox"

# claim file → (grant clause, its words, intake facts)
FROM_MEMORY: dict[str, tuple[str, str, dict[str, object]]] = {
    "C-1042.json": ("4.2(b)", "sudden and accidental discharge of water", INTAKE_WATER),
    "C-1044.yaml": (
        "4.4(a)",
        "theft or attempted theft involving forcible and violent entry",
        {
            "loss_type": "theft",
            "cause": "back door forced by burglars",
            "date_of_loss": "2025-09-14",
            "damage_start_date": "2025-09-14",
            "amount_claimed": 2600,
        },
    ),
    # The flood claim: 7.2 excludes it, and an automatic "covered" here pays a flood.
    "C-1045.json": (
        "4.3(a)",
        "torrential rain at a rate of at least 25 mm per hour",
        {
            "loss_type": "flood",
            "cause": "river burst its banks after three days of rain",
            "date_of_loss": "2025-11-30",
            "damage_start_date": "2025-11-30",
            "amount_claimed": 18500,
        },
    ),
}


def failed_lookup(clause_id: str) -> str:
    """A tool call naming a tool the agent does not have: CrewAI answers with an error."""
    args = json.dumps({"policy_id": "HM-HOME-001", "clause_id": clause_id})
    return f"Thought: I should read the clause.\nAction: policy_search\nAction Input: {args}"


def from_memory_script(clause_id: str, quote: str, intake: dict[str, object]) -> Script:
    answer = {
        "answer": "covered",
        "confidence": 0.9,
        "evidence": [{"clause_id": clause_id, "quote": quote}],
        "facts_relied_on": ["cause"],
        "rationale": f"{clause_id} covers it.",
    }
    return Script(
        intake=[final(intake)],
        policy=[failed_lookup(clause_id), final(answer)],
        fraud=[failed_lookup(clause_id), final(answer)],
    )


@pytest.mark.parametrize("name", sorted(FROM_MEMORY))
def test_agreement_from_memory_is_escalated_not_accepted(
    name: str, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    clause_id, quote, intake = FROM_MEMORY[name]
    script = from_memory_script(clause_id, quote, intake)
    record = review_claim(load_claim(INBOX / name), settings(sample_library, script, tmp_path))
    assert record.status == "reviewed", record.error
    # The failed call reached CrewAI and no lookup tool returned anything.
    assert len(script("policy").calls) == 2 and len(script("fraud").calls) == 2
    assert "policy_search" in json.dumps(script("policy").calls[1])
    assert all(not e.returned_clause_ids for e in record.ledger)
    assert isinstance(record.policy, Claim) and not record.policy.source_checked
    resolution = record.resolution
    assert resolution is not None
    sides = resolution.sides
    # The quotes are true: the re-read alone would have accepted this agreement.
    assert sides["policy"].holds and sides["fraud"].holds
    assert not sides["policy"].clauses[0].tool_sourced
    assert not sides["fraud"].clauses[0].tool_sourced
    assert (resolution.outcome, resolution.answer) == ("ESCALATED", None)
    assert resolution.would_have_been == "ACCEPTED"
    if name == "C-1045.json":
        # The flood claim's words fit exclusion 7.2, which no lookup returned: the agree rule
        # holds the agreement back before the gates are reached.
        assert resolution.reason_codes == ["exclusion_unchecked"]
        assert resolution.question and "7.2 (Flood)" in resolution.question
    else:
        assert resolution.reason_codes == ["not_tool_sourced"]
        assert resolution.question and "policy_lookup" in resolution.question


def test_the_requirement_can_be_turned_off(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    rules = config / "resolution.yaml"
    text = rules.read_text(encoding="utf-8")
    assert text.count("  required: true\n") == 1
    rules.write_text(text.replace("  required: true\n", "  required: false\n"), encoding="utf-8")
    outcomes = {}
    for name in ("C-1044.yaml", "C-1045.json"):
        script = from_memory_script(*FROM_MEMORY[name])
        record = review_claim(
            load_claim(INBOX / name), settings(sample_library, script, tmp_path, config)
        )
        assert record.resolution is not None
        outcomes[name] = (record.resolution.outcome, record.resolution.reason_codes)
    assert outcomes["C-1044.yaml"] == ("ACCEPTED", [])
    # The flood claim is still held back: its words fit exclusion 7.2, which nobody read.
    assert outcomes["C-1045.json"] == ("ESCALATED", ["exclusion_unchecked"])

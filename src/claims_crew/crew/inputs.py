"""What a claim's crews are given at kickoff: the claim, its text and the allowed answers.

The adjudicator adds its dispute, the targeted question its question and a rebuttal the other
side's claim; every kickoff has every key, so a task's `{placeholder}` always resolves.
"""

from __future__ import annotations

from claims_crew.claim_files import LoadedClaim
from claims_crew.vocabulary import KICKOFF_INPUTS


def kickoff_inputs(
    loaded: LoadedClaim, allowed_answers: tuple[str, ...], dispute: str, question: str = ""
) -> dict[str, str]:
    """The inputs a run gives crew.kickoff for this claim."""
    claim = loaded.claim
    inputs = {
        "claim_id": claim.claim_id,
        "policy_id": claim.policy_id,
        "claim_text": loaded.as_text(),
        "allowed_answers": ", ".join(allowed_answers),
        "dispute": dispute,
        "question": question,
        "other_claim": "",
    }
    assert inputs.keys() == KICKOFF_INPUTS.keys(), "kickoff inputs and KICKOFF_INPUTS differ"
    return inputs

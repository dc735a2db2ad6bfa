"""The sample claim that arrives as an e-mail: C-1052's insured writes what happened in the
e-mail's body, and the plumber's PDF report attached to it says, on page 2, when the damage
started (scripts/make_attachment_samples.py makes the e-mail)."""

from __future__ import annotations

from typing import Any

from tests.support.attachments import INBOX

HOSE_CLAIM = INBOX / "C-1052.json"
HOSE_EMAIL = "C-1052-email.eml"
HOSE_REPORT = f"{HOSE_EMAIL}/BL-4410-report.pdf"
# In the e-mail's body, where quoted-printable broke the line after "the".
HOSE_CAUSE = "the flexible hose feeding the dishwasher had split under the sink"
# On page 2 of the report the e-mail carries.
HOSE_STARTED = "The damage started on 9 February 2026, when the hose split early that morning"
# Both reviewers: a hose that split is a sudden discharge of water.
HOSE_COVERED: dict[str, Any] = {
    "answer": "covered",
    "confidence": 0.9,
    "evidence": [{"clause_id": "4.2(b)", "quote": "sudden and accidental discharge of water"}],
    "facts_relied_on": ["cause", "damage_start_date"],
    "rationale": "A hose that split is a sudden discharge of water under 4.2(b).",
}

INTAKE_HOSE: dict[str, Any] = {
    "loss_type": "water_damage",
    "cause": "split dishwasher hose under the kitchen sink",
    "date_of_loss": "2026-02-09",
    "damage_start_date": "2026-02-09",
    "amount_claimed": 1850,
    "unknowns": [],
    "sources": {
        "loss_type": {"where": "description", "quote": "Water damage in the kitchen"},
        "cause": {"where": HOSE_EMAIL, "quote": HOSE_CAUSE},
        "date_of_loss": {"where": "date_of_loss"},
        "damage_start_date": {"where": HOSE_REPORT, "quote": HOSE_STARTED},
        "amount_claimed": {"where": "amount"},
    },
}

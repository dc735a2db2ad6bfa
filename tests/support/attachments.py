"""The sample claims whose evidence is in a PDF, a scan or a photo, and intake's answers on them.

C-1049's start date is only on page 2 of its plumber's PDF report; C-1050's forced entry only in
its scanned police report; C-2002's repair cost in a photographed estimate; C-2003's account in
the insured's Word statement; C-2004's in an estimate photographed as HEIC
(scripts/make_attachment_samples.py makes the files).
"""

from __future__ import annotations

from typing import Any

from tests.support.paths import ROOT

INBOX = ROOT / "claims" / "inbox"
SPLIT_CLAIM = INBOX / "C-1049.json"
SPLIT_REPORT = "C-1049-plumber.pdf"
SPLIT_STARTED = (
    "The damage started on 16 January 2026, when the pipe split overnight during the frost"
)
# A sentence the report never says, attributed to it.
SPLIT_MADE_UP = "The damage started on 10 January 2026, when the tank first overflowed"
THEFT_CLAIM = INBOX / "C-1050.yaml"
POLICE_REPORT = "C-1050-police-report.pdf"
ESTIMATE_CLAIM = INBOX / "C-2002.json"
ESTIMATE = "C-2002-estimate.jpg"
STATEMENT_CLAIM = INBOX / "C-2003.json"
STATEMENT = "C-2003-statement.docx"
HEIC_CLAIM = INBOX / "C-2004.json"
HEIC_ESTIMATE = "C-2004-estimate.heic"

INTAKE_SPLIT: dict[str, Any] = {
    "loss_type": "water_damage",
    "cause": "split pipe under the bath",
    "date_of_loss": "2026-01-17",
    "damage_start_date": None,
    "amount_claimed": 3200,
    "unknowns": ["damage_start_date"],
    "sources": {
        "loss_type": {
            "where": "description",
            "quote": "water came through the living room ceiling from the bathroom above",
        },
        "cause": {
            "where": "description",
            "quote": "Our plumber found a split pipe under the bath and replaced it",
        },
        "date_of_loss": {"where": "date_of_loss"},
        "amount_claimed": {"where": "amount"},
    },
}
SPLIT_RULING = {
    "choice": "policy",
    "reason": "A pipe that split overnight in the frost is a sudden burst, not seepage.",
    "evidence": ["4.2(b)"],
}

"""A small motor wording whose exclusions read like nothing in particular, built as a real PDF.

Its section 2 lists what is not covered without saying so: no "exclusion" in the heading, no
"we will not pay" in the clauses. Segmented, those clauses are kind `other`, as real wordings'
"General Exceptions" often are; a correction in the policy folder's own index.yaml marks them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from tests.support.paths import ROOT, SAMPLE_POLICIES
from tests.support.scripts import load_script

POLICY_ID = "TM-MOTOR-001"
PDF_NAME = "tideway_motor.pdf"
WORDING = """Tideway Motor Policy TM-2025
Policy form TM-2025. Issued by Tideway Insurance Limited, a fictional insurer used for tests only.

# 1 THE COVER WE PROVIDE
1.1 Damage to your car
We will pay for loss of or damage to your car caused by accident, fire or theft.
1.2 Windscreen
We will pay to repair or replace broken glass in the windscreen or windows of your car.

# 2 SPECIAL PROVISIONS
2.1 Track days
Loss of or damage to your car while it is driven on a racing circuit or at a track day.
2.2 Keys left in the car
Theft of your car while the keys are left in or on it.
"""
TRACK_DAY_QUOTE = "driven on a racing circuit or at a track day"


def _build_pdf(source: str) -> bytes:
    data: bytes = load_script(ROOT / "scripts" / "build_policies.py").build_pdf(source)
    return data


def policy_folder(tmp_path: Path, corrections: list[dict[str, Any]] | None = None) -> Path:
    """A copy of policies/ with the motor wording added, its entry carrying `corrections`."""
    folder = tmp_path / "policies"
    shutil.copytree(SAMPLE_POLICIES, folder, ignore=shutil.ignore_patterns("src"))
    (folder / PDF_NAME).write_bytes(_build_pdf(WORDING))
    index = yaml.safe_load((folder / "index.yaml").read_text(encoding="utf-8"))
    entry: dict[str, Any] = {
        "file": PDF_NAME,
        "product": "Tideway Motor Policy (form TM-2025)",
        "line": "auto",
        "in_force_from": "2025-01-01",
        "in_force_to": "2025-12-31",
    }
    if corrections is not None:
        entry["corrections"] = corrections
    index["policies"][POLICY_ID] = entry
    (folder / "index.yaml").write_text(yaml.safe_dump(index, sort_keys=False), encoding="utf-8")
    return folder


TRACK_DAY_CLAIM = {
    "claim_id": "C-7001",
    "policy_id": POLICY_ID,
    "claimant": "Sam Okafor",
    "date_reported": "2025-06-16",
    "date_of_loss": "2025-06-14",
    "description": "My car spun off into a barrier during a track day at the Castle Combe "
    "circuit. The front bumper and both wings are damaged.",
    "amount": 3800,
    "currency": "GBP",
    "attachments": [],
}
INTAKE_TRACK_DAY = {
    "loss_type": "collision",
    "cause": "spun off into a barrier during a track day",
    "date_of_loss": "2025-06-14",
    "damage_start_date": "2025-06-14",
    "amount_claimed": 3800,
    "unknowns": [],
    "sources": {
        "loss_type": {"where": "description", "quote": "spun off into a barrier"},
        "cause": {
            "where": "description",
            "quote": "My car spun off into a barrier during a track day",
        },
        "date_of_loss": {"where": "date_of_loss"},
        "damage_start_date": {"where": "date_of_loss"},
        "amount_claimed": {"where": "amount"},
    },
}


def not_covered(confidence: float) -> dict[str, Any]:
    return {
        "answer": "not_covered",
        "confidence": confidence,
        "evidence": [{"clause_id": "2.1", "quote": TRACK_DAY_QUOTE}],
        "facts_relied_on": ["cause"],
        "rationale": "The car was damaged at a track day, which 2.1 takes out of the cover.",
    }


def track_day_claim(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "C-7001.json"
    path.write_text(json.dumps(TRACK_DAY_CLAIM), encoding="utf-8")
    return path

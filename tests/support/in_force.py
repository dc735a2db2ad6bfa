"""A wording in force made by hand: the sample home form with HM-E-07's new 4.2(b), so the
resolver, the lookup tool, letters and the review page can be tested on an amended clause
whatever the endorsement reader makes of the PDFs.
"""

from __future__ import annotations

from datetime import date

import pytest

from claims_crew.errors import PolicyError
from claims_crew.policy.amend import Amendment
from claims_crew.policy.cache import StoredIndex
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.issued import IssuedPolicy
from claims_crew.policy.library import PolicyLibrary

FORM_4_2_B = (
    "(b) sudden and accidental discharge of water or steam from within a plumbing, heating or "
    "air conditioning system or a household appliance;"
)
AMENDED_4_2_B = (
    "(b) sudden and accidental discharge of water or steam from within a plumbing, heating or "
    "air conditioning system, or from a household appliance that was less than 10 years old at "
    "the time of the loss;"
)
HM_E_07 = Amendment(
    endorsement="HM-E-07",
    title="Escape of water – appliances",
    effective=date(2025, 1, 1),
    kind="replace",
    pages=(1,),
    original=FORM_4_2_B,
)
ISSUED = IssuedPolicy.model_validate(
    {
        "number": "HM-25-00417",
        "form": "HM-HOME-001",
        "holder": "Priya Raman",
        "period": {"from": "2025-01-01", "to": "2025-12-31"},
        "endorsements": [{"endorsement": "HM-E-07", "effective": "2025-01-01"}],
    }
)


AUTO = IssuedPolicy.model_validate(
    {
        "number": "MA-25-0193",
        "form": "MR-AUTO-001",
        "period": {"from": "2025-03-01", "to": "2026-02-28"},
        "declarations": "lindqvist-declarations.yaml",
    }
)


def amended(
    form: PolicyDocument,
    texts: dict[str, str],
    amendments: dict[str, Amendment],
    issued: IssuedPolicy = ISSUED,
) -> PolicyDocument:
    """The form with each clause in `texts` given its new words and its Amendment."""
    clauses = [c._replace(text=texts[c.id]) if c.id in texts else c for c in form.clauses]
    stored = StoredIndex(form.page_count, clauses, form.keys, form.label_keys, form.ocr)
    doc = PolicyDocument(form.path, form.sha256, stored, form.index_path, form.corrections_sha256)
    doc.amendments, doc.form, doc.issued = amendments, form, issued
    return doc


def home_in_force(form: PolicyDocument, delete_7_11: bool = False) -> PolicyDocument:
    """HM-25-00417 as in force in 2025: 4.2(b) as HM-E-07 replaced it; with `delete_7_11`,
    exclusion 7.11 deleted by a second endorsement (its words in force: none)."""
    texts, amendments = {"4.2(b)": AMENDED_4_2_B}, {"4.2(b)": HM_E_07}
    if delete_7_11:
        texts["7.11"] = ""
        amendments["7.11"] = Amendment(
            "HM-E-99", "Loss of value", date(2025, 1, 1), "delete", (2,), form.full_text("7.11")
        )
    return amended(form, texts, amendments)


def issued_by_hand(library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch) -> PolicyLibrary:
    """`library` with two issued policies whose wording in force is made by hand: HM-25-00417's
    (home_in_force, 7.11 deleted too) and MA-25-0193's, the form as it is with its declarations.
    Another number is an unknown policy; one on another form, the wrong form (as the library
    says them)."""
    library.issued = {ISSUED.number: ISSUED, AUTO.number: AUTO}

    def in_force(self: PolicyLibrary, policy_id: str, number: str, on: date) -> PolicyDocument:
        issued = self.issued.get(number)
        if issued is None:
            raise PolicyError("unknown_policy", f"no issued policy {number}")
        if issued.form != policy_id:
            raise PolicyError("wrong_form", f"{number} is issued on form {issued.form}")
        form = self.open(policy_id)
        if number == ISSUED.number:
            return home_in_force(form, delete_7_11=True)
        return amended(form, {}, {}, issued)

    monkeypatch.setattr(PolicyLibrary, "in_force", in_force)
    return library

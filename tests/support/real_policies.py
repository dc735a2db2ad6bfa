"""The real policy PDFs in ../shared/policies that the tests read, and how the `real_doc`
fixture hands one over."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from claims_crew.policy.document import PolicyDocument

REAL_PDFS = [
    "iso_ho3_ho0003_1000_us_homeowners.pdf",
    "allstate_auto_au127_us.pdf",
    "barclays_travel_uk.pdf",
    "national_parivar_mediclaim_plus_in.pdf",
    "chola_group_domestic_travel_in.pdf",
    "glatfelter_business_auto_ca0001_fl_us.pdf",
    "amex_card_insurance_au.pdf",
]


@dataclass(frozen=True)
class RealPolicy:
    doc: PolicyDocument
    pages: list[str]


OpenReal = Callable[[str], RealPolicy]

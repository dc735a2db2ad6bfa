"""A table of contents never opens clauses: on small texts, and on every real policy."""

from __future__ import annotations

import re

import pytest

from claims_crew.policy.contents import contents_lines
from claims_crew.policy.segment import segment
from tests.support.real_policies import REAL_PDFS, OpenReal

BODY = """\
Section 1 – Definitions
"Trip" means a journey.
Section 2 – Cancellation
We will pay your deposit.
Section 3 – Exclusions
We will not pay for war.
"""

CONTENTS_STYLES = {
    "dot leaders": "TABLE OF CONTENTS\nSection 1 – Definitions ........ 2\n"
    "Section 2 – Cancellation ........ 2\nSection 3 – Exclusions ........ 2\n",
    "title and page": "Contents\nSection 1 – Definitions  2\nSection 2 – Cancellation  2\n"
    "Section 3 – Exclusions  2\n",
    "page and title, no heading": "5 Section 1 – Definitions\n7 Section 2 – Cancellation\n"
    "7 Section 3 – Exclusions\n12 Section 4 – Claims\n18 Section 5 – Complaints\n"
    "Finding your way\n",
}


@pytest.mark.parametrize("style", sorted(CONTENTS_STYLES))
def test_contents_page_opens_no_clause(style: str) -> None:
    body = BODY + "Section 4 – Claims\nTell us.\nSection 5 – Complaints\nWrite to us.\n"
    clauses = segment(["Acme Travel Policy\n" + CONTENTS_STYLES[style], body])
    assert [c.pages[0] for c in clauses if c.id != "preamble"] == [2] * len(clauses[1:])
    ids = [c.id for c in clauses]
    assert "Section 1" in ids and not any("~" in i for i in ids)
    # The contents lines are not lost: they are the text of the clause that was open.
    assert "Section 2 – Cancellation" in clauses[0].text


def test_a_numbered_list_is_not_a_contents_page() -> None:
    covers = "\n".join(f"{n} Cover number {n}" for n in range(1, 12))
    later = "\n".join(f"Cover number {n}" for n in range(1, 12))
    assert contents_lines([covers.splitlines(), later.splitlines()]) == frozenset()


# Pages of the real policies that hold a table of contents or a schedule of forms, found by
# reading them.
CONTENTS_PAGES = {
    "allstate_auto_au127_us.pdf": {2},
    "amex_card_insurance_au.pdf": {2},
    "barclays_travel_uk.pdf": {3},
    "glatfelter_business_auto_ca0001_fl_us.pdf": {5},
}
_ENTRY = re.compile(r"(?:\.\s?){4,}\s*\d{1,3}$")


@pytest.mark.parametrize("name", REAL_PDFS)
def test_no_real_policy_has_a_clause_opened_by_its_contents(real_doc: OpenReal, name: str) -> None:
    doc = real_doc(name).doc
    pages = CONTENTS_PAGES.get(name, set())
    opened = [c.id for c in doc.clauses if c.pages[0] in pages and c.id != "preamble"]
    assert opened == []
    assert not [c.id for c in doc.clauses if _ENTRY.search(c.title)]

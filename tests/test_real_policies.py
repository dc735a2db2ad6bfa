"""The policy library on real policy PDFs that nobody on this project wrote (../shared/policies).

They skip, with a reason, where that folder is absent.
"""

from __future__ import annotations

import shutil
from collections import Counter
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.cache import index_path
from claims_crew.policy.document import LookupMiss
from claims_crew.settings import policy_cache_dir
from tests.support.paths import shared_pdf
from tests.support.real_policies import REAL_PDFS, OpenReal


class Picked(NamedTuple):
    """A clause picked by reading the document."""

    name: str  # the PDF
    reference: str  # as a person would write it
    clause_id: str  # the canonical id it must resolve to
    kind: str
    words: str  # words from its text
    query: str  # words to search for


PICKED = [
    Picked(
        "iso_ho3_ho0003_1000_us_homeowners.pdf",
        "Section I A.1.a",
        "Section I.A.1(a)",
        "grant",
        'The dwelling on the "residence premises"',
        "dwelling residence premises attached structures",
    ),
    Picked(
        "iso_ho3_ho0003_1000_us_homeowners.pdf",
        "Section I~3 A.3",
        "Section I~3.A.3",
        "exclusion",
        "Water Damage means",
        "water damage flood surface water waves tidal overflow",
    ),
    Picked(
        "iso_ho3_ho0003_1000_us_homeowners.pdf",
        "definitions B.8",
        "definitions.B.8",
        "definition",
        '"Occurrence" means an accident',
        "occurrence accident repeated exposure harmful",
    ),
    Picked(
        "allstate_auto_au127_us.pdf",
        "Part 1 definitions 2",
        "Part 1/definitions.2",
        "definition",
        '"Auto" __ means a land motor vehicle',
        "auto land motor vehicle public roads",
    ),
    Picked(
        "allstate_auto_au127_us.pdf",
        "Part 1/exclusions-what-is-not-covered.1",
        "Part 1/exclusions-what-is-not-covered.1",
        "exclusion",
        "carry persons or property for a charge",
        "carry persons property charge shared car pools",
    ),
    Picked(
        "barclays_travel_uk.pdf",
        "Section 13 What is covered",
        "Section 13/what-is-covered",
        "grant",
        "£150 for each complete 12 hours",
        "without your baggage complete 12 hours",
    ),
    Picked(
        "national_parivar_mediclaim_plus_in.pdf",
        "2.21",
        "2.21",
        "definition",
        "Grace Period means",
        "grace period premium due date",
    ),
    Picked(
        "national_parivar_mediclaim_plus_in.pdf",
        "4.1.",
        "4.1",
        "exclusion",
        "Pre-Existing Diseases (Excl 01)",
        "pre-existing diseases excl 01",
    ),
    Picked(
        "national_parivar_mediclaim_plus_in.pdf",
        "§3.1.1",
        "3.1.1",
        "grant",
        "In-patient Treatment",
        "in-patient treatment indemnify medical expenses",
    ),
    Picked(
        "chola_group_domestic_travel_in.pdf",
        "1.",
        "1",
        "definition",
        "1. DEFINITIONS",
        "word expression specific meaning assigned",
    ),
    Picked(
        "chola_group_domestic_travel_in.pdf",
        "clause 3",
        "3",
        "grant",
        "COVERAGE - BASE COVERS",
        "base covers mandatory proposer avail",
    ),
    Picked(
        "glatfelter_business_auto_ca0001_fl_us.pdf",
        "Section II~2 coverage A",
        "Section II~2/coverage.A",
        "grant",
        'We will pay all sums an "insured" legally must pay',
        "sums insured legally must pay damages bodily injury property damage",
    ),
    Picked(
        "amex_card_insurance_au.pdf",
        "Section (A)~2",
        "Section A~2",
        "grant",
        "Trip Cancellation And Amendment Cover",
        "trip cancellation amendment eligibility criteria",
    ),
]


@pytest.mark.parametrize("name", REAL_PDFS)
def test_clauses_cover_the_extracted_words(real_doc: OpenReal, name: str) -> None:
    real = real_doc(name)
    doc, pages = real.doc, real.pages
    extracted = Counter(w for page in pages for w in page.split())
    in_clauses = Counter(w for c in doc.clauses for w in c.text.split())
    covered = sum(min(n, in_clauses[w]) for w, n in extracted.items())
    assert covered / sum(extracted.values()) >= 0.98
    assert doc.page_count == len(pages)


@pytest.mark.parametrize("name", REAL_PDFS)
def test_every_listed_id_round_trips(real_doc: OpenReal, name: str) -> None:
    doc = real_doc(name).doc
    ids = [c.id for c in doc.clauses]
    assert len(ids) == len(set(ids))
    for clause in doc.clauses:
        found = doc.lookup(clause.id)
        assert not isinstance(found, LookupMiss) and found.id == clause.id
        assert clause.parent is None or doc.get(clause.parent) is not None


@pytest.mark.parametrize("name", REAL_PDFS)
def test_ids_round_trip_through_the_show_command(real_doc: OpenReal, name: str) -> None:
    import json

    doc = real_doc(name).doc
    # The command finds the index this run already wrote, named by the PDF's hash, as a second
    # `show` finds the first one's: each large PDF is read once a run, not again in each home.
    cached = index_path(policy_cache_dir(), doc.sha256)
    cached.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(doc.index_path, cached)
    step = max(1, len(doc.clauses) // 12)  # a spread of ids; the full set is checked above
    for clause in doc.clauses[::step]:
        result = CliRunner().invoke(
            main, ["policy", "show", str(shared_pdf(name)), clause.id, "--json"]
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["id"] == clause.id


@pytest.mark.parametrize("pick", PICKED, ids=lambda p: f"{p[0]}:{p[1]}")
def test_picked_clause_by_printed_label(real_doc: OpenReal, pick: Picked) -> None:
    doc = real_doc(pick.name).doc
    found = doc.lookup(pick.reference)
    assert not isinstance(found, LookupMiss), found
    assert (found.id, found.kind) == (pick.clause_id, pick.kind)
    assert pick.words in " ".join(doc.full_text(found.id).split())


@pytest.mark.parametrize("pick", PICKED, ids=lambda p: f"{p[0]}:{p[1]}")
def test_search_finds_the_picked_clause(real_doc: OpenReal, pick: Picked) -> None:
    hits = real_doc(pick.name).doc.search(pick.query, limit=5)
    assert pick.clause_id in [h.clause.id for h in hits]


def test_section_path_reference_on_the_iso_form(real_doc: OpenReal) -> None:
    doc = real_doc("iso_ho3_ho0003_1000_us_homeowners.pdf").doc
    found = doc.lookup("Section I A.1")
    assert not isinstance(found, LookupMiss)
    assert found.id == "Section I.A.1" and found.kind == "grant"
    assert doc.full_text(found.id).startswith("1. We cover:")

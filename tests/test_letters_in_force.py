"""A letter on a clause an endorsement changed cites it "as amended by endorsement …" and quotes
the words in force, in every format; the wording in force is made by hand
(tests/support/in_force.py), the claim reviewed through the real crew with scripted models."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from claims_crew.letters.content import LetterClause, plain_reason
from claims_crew.policy.library import PolicyLibrary
from tests.support.crew import water_claim_saying_when as water_claim
from tests.support.in_force import issued_by_hand
from tests.support.letters import adjudicated_water, decided, letter, pdf_text
from tests.support.paths import SAMPLE_POLICIES

CITED = "Clause 4.2(b) as amended by endorsement HM-E-07 (page 1)"
IN_FORCE = "from a household appliance that was less than 10 years old at the time of the loss"
FORM_ONLY = "air conditioning system or a household appliance;"


@pytest.fixture
def library(session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> PolicyLibrary:
    return issued_by_hand(PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=session_cache), monkeypatch)


def _decided(library: PolicyLibrary, tmp_path: Path) -> None:
    """C-1042 on HM-25-00417, the leak's start stated: the policy agent cites 4.2(b) (in words
    the amendment kept), the fraud agent 7.1, and the adjudicator sides with the policy agent."""
    path = water_claim(tmp_path / "inbox")
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "policy_number": "HM-25-00417"}), encoding="utf-8")
    decided(library, path, adjudicated_water())


def test_every_format_cites_the_endorsement_and_quotes_the_words_in_force(
    library: PolicyLibrary, tmp_path: Path
) -> None:
    _decided(library, tmp_path)
    code, shown, err = letter("C-1042")
    assert code == 0, err
    md = shown.decode("utf-8")
    assert "under policy HM-HOME-001 (policy number HM-25-00417)," in md
    assert f"**{CITED}**" in md
    assert "covered by clause 4.2(b) as amended by endorsement HM-E-07 (page 1)" in md
    assert IN_FORCE in md and FORM_ONLY not in md

    code, shown, err = letter("C-1042", "--format", "html")
    assert code == 0, err
    page = html.unescape(shown.decode("utf-8"))
    assert f"<b>{CITED}</b>" in page and IN_FORCE in page and FORM_ONLY not in page

    out = tmp_path / "C-1042.pdf"
    code, _, err = letter("C-1042", "--format", "pdf", "--out", str(out))
    assert code == 0, err
    text = pdf_text(out.read_bytes())
    assert CITED in text and "(policy number HM-25-00417)" in text
    assert " ".join(IN_FORCE.split()) in text and FORM_ONLY not in text


def test_the_reason_names_an_amended_clause_as_amended() -> None:
    clause = LetterClause(
        clause_id="7.12",
        title="Hot tubs and spa pools",
        kind="exclusion",
        pages=[1],
        text="7.12 Hot tubs and spa pools …",
        amended_by="as added by endorsement HM-E-09 (page 1)",
    )
    assert plain_reason("not_covered", "HM-HOME-001", [clause]) == (
        "Policy HM-HOME-001 excludes the loss you describe: see clause 7.12 as added by "
        "endorsement HM-E-09 (page 1) (Hot tubs and spa pools)."
    )

"""The exclusions a decision must answer: those the claim's words fit, found by the policy search
on the real PDFs, and read or not by an agent as the tool ledger and the cited evidence say."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.models import AdjudicatorAnswer, IntakeFacts
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.fit import fitting
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver import Case, apply_adjudication, resolve
from claims_crew.resolver.case_files import load_case
from claims_crew.resolver.config import ResolutionConfig, load_config, parse_config
from claims_crew.resolver.reread import fitting_exclusions
from claims_crew.vocabulary import AdjudicatorChoice
from tests.support.paths import ROOT
from tests.support.real_policies import OpenReal

CASES = ROOT / "examples" / "cases"
INBOX = ROOT / "claims" / "inbox"
RULES = load_config(ROOT / "config")


def _fits(library: PolicyLibrary, claim_file: str) -> list[str]:
    """The exclusions the claim's own words fit (intake's facts left out)."""
    claim = load_claim(INBOX / claim_file).claim
    found = fitting_exclusions(library, claim.policy_id, claim, IntakeFacts(), RULES)
    return [fit.clause.id for fit in found]


@pytest.mark.parametrize(
    ("claim_file", "fits"),
    [
        ("C-1045.json", ["7.2"]),  # the river burst its banks: the flood exclusion
        ("C-1047.json", ["7.1(a)", "7.1(c)"]),  # grout letting water in: seepage and grout
        ("C-1048.json", ["7.1(a)"]),  # a leaking joint under the shower tray: seepage
        ("C-1044.yaml", []),  # burglary: nothing to read before agreeing it is covered
        ("C-1043.json", []),  # a pipe that burst: 7.1 shares only "water" and "under" with it
        ("C-1046.json", []),  # hail on the shed: its "9.4" and "covered" tell nothing apart
    ],
)
def test_the_claims_words_fit_the_exclusions_an_adjuster_reads(
    sample_library: PolicyLibrary, claim_file: str, fits: list[str]
) -> None:
    assert _fits(sample_library, claim_file) == fits


def test_one_word_is_a_coincidence_and_two_are_a_reason(home_policy: PolicyDocument) -> None:
    """ "Roof lights" shares one word with 7.1(b)'s "the action of light"; rust and light are
    two of its words."""
    settings = RULES.exclusions
    kw: dict[str, Any] = {
        "min_words": settings.min_words,
        "min_score": settings.min_score,
        "common_share": settings.common_share,
    }
    assert fitting(home_policy, "hail broke the roof lights", settings.kinds, **kw) == []
    [fit] = fitting(home_policy, "rust ate the frame of the roof lights", settings.kinds, **kw)
    assert (fit.clause.id, sorted(fit.words)) == ("7.1(b)", ["lights", "rust"])
    assert fit.shown_by == ("7.1(b)", "7.1", "7")
    # Even allowed alone, one word stays under the score: "flood" weighs 1.8 rare words.
    assert fitting(home_policy, "flood", settings.kinds, **{**kw, "min_words": 1}) == []


def test_the_ranking_without_snippets_is_the_ranking(home_policy: PolicyDocument) -> None:
    """fitting() asks for no snippets; the clauses, their order and scores are the search's."""
    terms = ["water", "escape", "pipe", "frost", "flood", "storm", "subsidence"]
    full = home_policy.rank(terms, len(home_policy.clauses))
    bare = home_policy.rank(terms, len(home_policy.clauses), snippets=False)
    assert len(full) > 5 and all(hit.snippet for hit in full)
    assert [(h.clause.id, h.score) for h in bare] == [(h.clause.id, h.score) for h in full]
    assert {hit.snippet for hit in bare} == {""}


def test_the_bar_is_the_same_on_a_long_real_policy(real_doc: OpenReal) -> None:
    """Scores are counted in rare words, so a policy of 600 clauses is held to the bar of one of
    90: the flood claim fits the ISO homeowners form's flood exclusion, the burglary none."""
    doc = real_doc("iso_ho3_ho0003_1000_us_homeowners.pdf").doc
    settings = RULES.exclusions

    def fits(claim_file: str) -> list[str]:
        words = load_claim(INBOX / claim_file).claim.description
        found = fitting(
            doc,
            words,
            settings.kinds,
            min_words=settings.min_words,
            min_score=settings.min_score,
            common_share=settings.common_share,
        )
        return [f.clause.id for f in found]

    [flood] = fits("C-1045.json")
    assert "flood" in doc.full_text(flood).lower()
    assert fits("C-1044.yaml") == []


# ---- the rules: who read the exclusion, from the ledger and the evidence only ----------------


def _flood(
    tmp_path: Path, library: PolicyLibrary, rules: ResolutionConfig = RULES, **edit: Any
) -> Case:
    """agree-exclusion-unchecked (C-1045, both covered on 4.3(a)) with some of its keys edited."""
    data = json.loads((CASES / "agree-exclusion-unchecked.json").read_text(encoding="utf-8"))
    for key, change in edit.items():
        change(data[key])
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_case(path, library, rules)


def _looked_up(agent: str, returned: list[str], tool: str = "policy_lookup") -> Any:
    entry = {
        "agent": agent,
        "tool": tool,
        "args": {"policy_id": "HM-HOME-001"},
        "returned": returned,
    }
    return lambda ledger: ledger.append(entry)


def test_an_unread_exclusion_is_named_to_the_person(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    resolution = resolve(_flood(tmp_path, sample_library), RULES)
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "agree")
    assert resolution.reason_codes == ["exclusion_unchecked"]
    assert resolution.would_have_been == "ACCEPTED"
    assert "7.2 (Flood: river, flood, water)" in resolution.reason
    assert resolution.question is not None and "7.2 (Flood)" in resolution.question


@pytest.mark.parametrize(
    "read",
    [
        _looked_up("fraud", ["7.2"]),  # looked the exclusion up
        _looked_up("policy", ["7"]),  # or the section it sits in, which shows its text
        _looked_up("fraud", ["4.3(a)", "7.2", "7"]),  # a search that listed it
    ],
)
def test_an_exclusion_an_agent_looked_up_lets_the_agreement_stand(
    sample_library: PolicyLibrary, tmp_path: Path, read: Any
) -> None:
    resolution = resolve(_flood(tmp_path, sample_library, ledger=read), RULES)
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered")


def test_an_exclusion_an_agent_cited_counts_as_read(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """Arguing that an exclusion does not apply is part of a covered answer."""
    why = {"clause_id": "7.2", "quote": "unless flood cover is shown as included in the schedule"}
    case = _flood(tmp_path, sample_library, claims=lambda c: c["policy"]["evidence"].append(why))
    assert resolve(case, RULES).outcome == "ACCEPTED"


@pytest.mark.parametrize(
    "not_read",
    [
        _looked_up("fraud", ["7.1"]),  # another exclusion
        _looked_up("fraud", ["7.2"], tool="web_search"),  # not the lookup tool
        _looked_up("policy", []),  # a lookup that found nothing
    ],
)
def test_only_the_lookup_tool_returning_that_clause_counts(
    sample_library: PolicyLibrary, tmp_path: Path, not_read: Any
) -> None:
    resolution = resolve(_flood(tmp_path, sample_library, ledger=not_read), RULES)
    assert resolution.reason_codes == ["exclusion_unchecked"]


def test_the_model_saying_it_checked_counts_for_nothing(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    def say_so(claims: dict[str, Any]) -> None:
        for side in ("policy", "fraud"):
            claims[side]["rationale"] = "I checked exclusion 7.2: flood cover is in the schedule."
            claims[side]["source_checked"] = True

    resolution = resolve(_flood(tmp_path, sample_library, claims=say_so), RULES)
    assert resolution.reason_codes == ["exclusion_unchecked"]


def test_the_check_can_be_turned_off(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    off = parse_config({**RULES.model_dump(by_alias=True), "exclusions": {"check": False}})
    case = _flood(tmp_path, sample_library, off)
    assert case.exclusions == ()
    assert resolve(case, off).outcome == "ACCEPTED"


def test_short_confidence_and_an_unread_exclusion_are_both_named(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    def unsure(claims: dict[str, Any]) -> None:
        claims["policy"]["confidence"] = claims["fraud"]["confidence"] = 0.6

    resolution = resolve(_flood(tmp_path, sample_library, claims=unsure), RULES)
    assert resolution.reason_codes == ["low_confidence", "exclusion_unchecked"]
    assert resolution.would_have_been is None
    assert "without enough confidence" in (resolution.question or "")
    assert "7.2 (Flood)" in (resolution.question or "")


def test_an_agreement_on_not_covered_needs_no_exclusion_read(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    excluded = {
        "answer": "not_covered",
        "confidence": 0.9,
        "evidence": [{"clause_id": "7.3", "quote": "Mould, mildew, wet rot"}],
        "facts_relied_on": ["cause"],
        "rationale": "Mould.",
    }

    def both_excluded(claims: dict[str, Any]) -> None:
        claims["policy"] = claims["fraud"] = excluded

    case = _flood(
        tmp_path, sample_library, claims=both_excluded, ledger=_looked_up("policy", ["7.3"])
    )
    assert resolve(case, RULES).outcome == "ACCEPTED"


# ---- prefer: a side that cited badly may still be right --------------------------------------


def test_the_guard_on_prefer_can_be_turned_off(sample_library: PolicyLibrary) -> None:
    unguarded = parse_config(
        {**RULES.model_dump(by_alias=True), "exclusions": {"guard_prefer": False}}
    )
    case = load_case(CASES / "prefer-exclusion-fits-loser.json", sample_library, unguarded)
    resolution = resolve(case, unguarded)
    assert (resolution.outcome, resolution.winner) == ("PREFERRED", "policy")


@pytest.mark.parametrize(
    ("choice", "evidence", "outcome", "codes"),
    [
        # The fitting exclusion, which the code read and showed the adjudicator, may carry the
        # answer; fraud misquoted it, so nothing fraud looked up verifies: a person decides.
        ("fraud", ["7.2"], "ESCALATED", ["quote_mismatch", "not_tool_sourced"]),
        ("policy", ["4.3(a)"], "ADJUDICATED", ["quote_mismatch"]),
        # A clause neither cited nor fitting is not the adjudicator's to rest on.
        ("fraud", ["7.5"], "ESCALATED", ["adjudicator_invalid"]),
    ],
)
def test_the_adjudicator_may_rest_on_the_fitting_exclusion(
    sample_library: PolicyLibrary,
    choice: AdjudicatorChoice,
    evidence: list[str],
    outcome: str,
    codes: list[str],
) -> None:
    case = load_case(CASES / "prefer-exclusion-fits-loser.json", sample_library, RULES)
    dispute = resolve(case, RULES)
    assert (dispute.outcome, dispute.rule) == ("ADJUDICATION_REQUIRED", "prefer")
    answer = AdjudicatorAnswer(choice=choice, reason="The words decide it.", evidence=evidence)
    resolution, check = apply_adjudication(case, RULES, dispute, answer)
    assert resolution.outcome == outcome
    assert resolution.reason_codes == codes
    assert check.valid is ("adjudicator_invalid" not in codes)

"""Facts are evidence too: intake's facts are checked against the claim before the rules use them.

Through the scripted crew: the water claims with a start date that is guessed, misquoted, quoted
from words that name another day, taken from the wrong field of the claim file, or quoted
correctly from the description or the plumber's report.
"""

from __future__ import annotations

import re
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.llms.scripted import final, lookup
from claims_crew.models import ClaimFile, FactSource, IntakeFacts, ParseFailure, parse_intake
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import FactCheck
from claims_crew.resolver.case import Case, PolicyView
from claims_crew.resolver.config import FactCues
from claims_crew.resolver.fact_sources import check_facts, states_amount, states_date
from claims_crew.run.crew_review import review_claim
from tests.support.crew import (
    BURST_QUOTE,
    FOUND_BY_TENANT,
    FRAUD_EXCLUDED,
    INTAKE_BURST,
    INTAKE_LEAK,
    INTAKE_WATER,
    LEAK_CLAIM,
    LEAK_REPORT,
    LEAK_STARTED,
    PLUMBER_VISITED,
    POLICY_COVERED,
    STITCHED,
    WATER_CLAIM,
    Script,
    settings,
    start_date_answer,
    water_claim_adding,
)
from tests.support.paths import ROOT

BURST_CLAIM = ROOT / "claims" / "inbox" / "C-1043.json"
RULING = {
    "choice": "policy",
    "reason": "A pipe that burst without warning is a sudden discharge under 4.2(b).",
    "evidence": ["4.2(b)"],
}


def _start(intake: dict[str, Any], day: str, source: dict[str, str] | None) -> dict[str, Any]:
    sources = {k: v for k, v in intake["sources"].items() if k != "damage_start_date"}
    if source is not None:
        sources["damage_start_date"] = source
    return {**intake, "damage_start_date": day, "unknowns": [], "sources": sources}


QUESTION = "When did the damage start?"
# id: (claim file, intake's answer, outcome, the start date's check, why it fails)
ROWS: dict[str, tuple[Path, dict[str, Any], str, str, str | None]] = {
    "guessed, no source": (
        WATER_CLAIM, _start(INTAKE_WATER, "2025-11-03", None),
        "ESCALATED", "unverified", "no source given",
    ),
    "quote not in the claim": (
        WATER_CLAIM,
        _start(INTAKE_WATER, "2025-11-03",
               {"where": "description", "quote": "The leak started on 3 November 2025"}),
        "ESCALATED", "unverified", "the quote is not in the description",
    ),
    "the loss date's field for the start date": (
        WATER_CLAIM, _start(INTAKE_WATER, "2025-11-03", {"where": "date_of_loss"}),
        "ESCALATED", "unverified", "the claim file's date_of_loss is not evidence of",
    ),
    "quote there, another date": (
        BURST_CLAIM,
        _start(INTAKE_BURST, "2025-11-01", {"where": "description", "quote": BURST_QUOTE}),
        "ESCALATED", "unverified", "the quote does not state 2025-11-01",
    ),
    "attachment not in the claim": (
        BURST_CLAIM,
        _start(INTAKE_BURST, "2025-11-02",
               {"where": "C-1042-plumber.txt", "quote": "2 November 2025"}),
        "ESCALATED", "unverified", "the claim has no attachment 'C-1042-plumber.txt'",
    ),
    "the date of one sentence joined to the start of the next": (
        BURST_CLAIM,
        _start(INTAKE_BURST, "2025-11-02",
               {"where": "description", "quote": "2 November 2025 … The damage started"}),
        "ESCALATED", "unverified", "the quote joins more than one sentence of the description",
    ),
    "the plumber's report's own date": (
        BURST_CLAIM,
        _start(INTAKE_BURST, "2025-11-02",
               {"where": "C-1043-plumber.txt",
                "quote": "Emergency call-out report, 2 November 2025, 07:45."}),
        "ESCALATED", "unverified", "the quote does not speak of damage_start_date",
    ),
    "quoted from the description": (
        BURST_CLAIM, INTAKE_BURST, "ADJUDICATED", "verified", None,
    ),
    "quoted from the plumber's report": (
        LEAK_CLAIM,
        _start(INTAKE_LEAK, "2025-10-06", {"where": LEAK_REPORT, "quote": LEAK_STARTED}),
        "ADJUDICATED", "verified", None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("row", list(ROWS))
def test_start_date_source_through_the_crew(
    row: str, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    claim, intake, outcome, status, problem = ROWS[row]
    script = Script(
        # Its first answer is under test: asked the targeted question, it answers null.
        intake=[final(intake), final(start_date_answer(None))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=[final(RULING)],
    )
    record = review_claim(load_claim(claim), settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert resolution.outcome == outcome, resolution.reason
    checks = {c.name: c for c in resolution.facts}
    start = checks["damage_start_date"]
    assert (start.status, start.value) == (status, intake["damage_start_date"])
    assert start.problem == problem or (problem and start.problem and problem in start.problem)
    # The claim file's own fields are verified by equality, in every row.
    assert checks["date_of_loss"].status == "verified"
    assert checks["amount_claimed"].status == "verified"
    # The record keeps what intake said, checked or not.
    assert isinstance(record.intake, IntakeFacts)
    assert record.intake.damage_start_date == date.fromisoformat(intake["damage_start_date"])
    if outcome == "ESCALATED":
        assert resolution.rule == "conflict"
        assert resolution.reason_codes == ["needs_more_evidence", "fact_unverified"]
        assert resolution.missing_facts == ["damage_start_date"]
        assert resolution.question and resolution.question.startswith(
            f"damage_start_date: {QUESTION} (intake read {intake['damage_start_date']}"
        )
        assert script("adjudicator").calls == []
        assert resolution.targeted is not None and not resolution.targeted.verified
    else:
        assert [c.status for c in resolution.facts] == ["verified"] * 5
        assert len(script("adjudicator").calls) == 1
        assert resolution.targeted is None  # nothing open: intake was asked once
        assert len(script("intake").calls) == 1


@pytest.mark.parametrize(
    ("quote", "problem"),
    [
        (STITCHED, "the quote joins more than one sentence of the description"),
        (PLUMBER_VISITED, "the quote does not speak of damage_start_date"),
    ],
    ids=["stitched", "another event"],
)
def test_intake_s_own_start_date_from_another_sentence_or_event_is_unverified(
    quote: str, problem: str, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """The claim says when the plumber came, never when the damage started."""
    intake = _start(INTAKE_WATER, "2025-11-03", {"where": "description", "quote": quote})
    script = Script(
        intake=[final(intake), final(start_date_answer(None))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=[final(RULING)],
    )
    claim = load_claim(water_claim_adding(tmp_path / "inbox", FOUND_BY_TENANT))
    record = review_claim(claim, settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "conflict")
    assert resolution.reason_codes == ["needs_more_evidence", "fact_unverified"]
    start = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert (start.status, start.value, start.quote) == ("unverified", "2025-11-03", quote)
    assert start.problem is not None and start.problem.startswith(problem)
    assert script("adjudicator").calls == []


def test_the_cue_words_are_read_from_resolution_yaml(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """With `visited` listed as a cue for damage_start_date, the plumber's visit is taken as the
    start (the rule is the configuration's, not a word list in the code); and with `started`
    dropped, C-1048's report no longer settles it."""
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    rules = config / "resolution.yaml"
    cues = re.compile(r"^  damage_start_date: \[[^]]*\]\n", re.MULTILINE)
    assert len(cues.findall(rules.read_text(encoding="utf-8"))) == 1
    rules.write_text(
        cues.sub("  damage_start_date: [visited]\n", rules.read_text(encoding="utf-8")),
        encoding="utf-8",
    )
    visited = _start(INTAKE_WATER, "2025-11-03", {"where": "description", "quote": PLUMBER_VISITED})
    leak = _start(INTAKE_LEAK, "2025-10-06", {"where": LEAK_REPORT, "quote": LEAK_STARTED})
    for claim, intake, status in (
        (water_claim_adding(tmp_path / "inbox", FOUND_BY_TENANT), visited, "verified"),
        (LEAK_CLAIM, leak, "unverified"),
    ):
        script = Script(
            intake=[final(intake), final(start_date_answer(None))],
            policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
            fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
            adjudicator=[final(RULING)],
        )
        record = review_claim(load_claim(claim), settings(sample_library, script, tmp_path, config))
        assert record.resolution is not None, record.error
        start = next(c for c in record.resolution.facts if c.name == "damage_start_date")
        assert start.status == status, start.problem


def test_a_fact_without_a_source_is_not_trusted_whatever_it_says(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """C-1043's start date is right, but intake did not say where the claim states it."""
    intake = _start(INTAKE_BURST, "2025-11-02", None)
    script = Script(
        intake=[final(intake), final(start_date_answer(None))],  # asked again: null
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
    )
    record = review_claim(load_claim(BURST_CLAIM), settings(sample_library, script, tmp_path))
    assert record.resolution is not None
    assert record.resolution.missing_facts == ["damage_start_date"]


@pytest.mark.parametrize(
    ("quote", "day", "stated"),
    [
        ("on 2025-11-02 at dawn", "2025-11-02", True),
        ("At about 7am on 2 November 2025", "2025-11-02", True),
        ("on 2nd November, 2025", "2025-11-02", True),
        ("November 2, 2025", "2025-11-02", True),
        ("Nov. 2 2025", "2025-11-02", True),
        ("the 2nd of November 2025", "2025-11-02", True),
        ("02/11/2025", "2025-11-02", True),
        ("2.11.2025", "2025-11-02", True),
        ("11/02/2025", "2025-11-02", False),  # day first: 11 February
        ("09/14/2025", "2025-09-14", True),  # month first cannot be misread here
        ("14 Sept 2025", "2025-09-14", True),
        ("12 Aug 2025, 21:10", "2025-08-12", True),
        ("12 November 2025", "2025-11-02", False),
        ("2 November 2024", "2025-11-02", False),
        ("2 November", "2025-11-02", False),  # no year: not that date for certain
        ("2025-11-021", "2025-11-02", False),
    ],
)
def test_a_date_quote_must_state_that_date(quote: str, day: str, stated: bool) -> None:
    assert states_date(quote, date.fromisoformat(day)) is stated


@pytest.mark.parametrize(
    ("quote", "amount", "stated"),
    [
        ("Total 2,300.00 USD.", 2300, True),
        ("we claim £4200", 4200, True),
        ("we claim £4,200", 4200, True),
        ("we claim £42000", 4200, False),
        ("Parts 980.00, labour 1,120.00", 2300, False),
        ("1.5 metres", 5, False),
    ],
)
def test_an_amount_quote_must_state_that_amount(quote: str, amount: float, stated: bool) -> None:
    assert states_amount(quote, amount) is stated


def test_sources_are_parsed_strictly() -> None:
    facts = parse_intake(
        '{"cause": "burst pipe", "sources": {"cause": {"where": "description", "quote": "burst"}}}'
    )
    assert isinstance(facts, IntakeFacts)
    assert facts.sources == {"cause": FactSource(where="description", quote="burst")}
    for bad in (
        '{"sources": {"colour": {"where": "description", "quote": "red"}}}',
        '{"sources": {"cause": {"where": "description", "quote": "x", "page": 2}}}',
        '{"sources": {"cause": {"where": "", "quote": "x"}}}',
        '{"sources": {"cause": ["description"]}}',
    ):
        assert isinstance(parse_intake(bad), ParseFailure), bad


def test_a_bare_place_name_reads_as_a_source_without_a_quote() -> None:
    """As records kept before sources had a shape hold them."""
    facts = IntakeFacts.model_validate({"sources": {"date_of_loss": "date_of_loss"}})
    assert facts.sources["date_of_loss"] == FactSource(where="date_of_loss")


# ---- a date's sentence speaks of the claimant's own loss -------------------------------------

NEIGHBOUR = "My neighbour's leak started on 1 October 2025."


def test_a_start_date_from_the_neighbour_s_leak_is_not_the_claimant_s(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """The sentence dates the neighbour's leak, not the claimant's damage: the date stays open,
    and intake is asked once, rather than the dispute going to the adjudicator as if known."""
    quote = "My neighbour's leak started on 1 October 2025"
    intake = _start(INTAKE_WATER, "2025-10-01", {"where": "description", "quote": quote})
    script = Script(
        intake=[final(intake), final(start_date_answer(None))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=[final(RULING)],
    )
    claim = load_claim(water_claim_adding(tmp_path / "inbox", NEIGHBOUR))
    record = review_claim(claim, settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "conflict")
    assert resolution.reason_codes == ["needs_more_evidence", "fact_unverified"]
    start = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert (start.status, start.value) == ("unverified", "2025-10-01")
    assert start.problem == (
        "the quote's sentence speaks of another's loss (\"neighbour's\"), not the claimant's"
    )
    assert script("adjudicator").calls == []


# (the claimant's words, the quote intake gives for damage_start_date, its date) → whose loss
# the check finds the sentence speaks of (None: the claimant's own, so the date verifies).
OWN_OR_OTHERS: dict[str, tuple[str, str, str, str | None]] = {
    "the neighbour's leak, quoted without the neighbour": (
        NEIGHBOUR, "leak started on 1 October 2025", "2025-10-01", "neighbour's"
    ),
    "my brother's roof": (
        "My brother’s roof began leaking on 2 October 2025, and I went to help.",
        "roof began leaking on 2 October 2025", "2025-10-02", "brother's",
    ),
    "the tenant's boiler": (
        "The tenant's boiler started leaking on 3 October 2025.",
        "The tenant's boiler started leaking on 3 October 2025", "2025-10-03", "tenant's",
    ),
    "the flat next door": (
        "The damp in the flat next door first appeared on 4 October 2025.",
        "next door first appeared on 4 October 2025", "2025-10-04", "next door",
    ),
    "my kitchen's pipe": (
        "My kitchen's pipe burst on 5 October 2025.",
        "My kitchen's pipe burst on 5 October 2025", "2025-10-05", None,
    ),
    "the neighbour only saw it": (
        "My neighbour noticed the damage started on 6 October 2025.",
        "the damage started on 6 October 2025", "2025-10-06", None,
    ),
    "the tenant's boiler, then our damage": (
        "The tenant's boiler failed and our damage started on 7 October 2025.",
        "our damage started on 7 October 2025", "2025-10-07", None,
    ),
    "my son's bedroom": (
        "My son's bedroom ceiling began to drip on 8 October 2025.",
        "My son's bedroom ceiling began to drip on 8 October 2025", "2025-10-08", None,
    ),
    "after the neighbour's visit": (
        "After my neighbour's visit, the damage started on 9 October 2025.",
        "the damage started on 9 October 2025", "2025-10-09", None,
    ),
}  # fmt: skip


def start_date_check(words: str, quote: str, day: str) -> FactCheck:
    """damage_start_date as the code checks it, quoted from a claim whose description is
    `words`: no model, no policy (the fact check reads neither)."""
    claim = ClaimFile(
        claim_id="C-9",
        policy_id="HM-HOME-001",
        claimant="Sam Reed",
        date_reported=date(2025, 11, 1),
        date_of_loss=date(2025, 10, 20),
        description=words,
        amount=100,
        currency="GBP",
    )
    facts = IntakeFacts(
        damage_start_date=date.fromisoformat(day),
        sources={"damage_start_date": FactSource(where="description", quote=quote)},
    )
    unread = ParseFailure(reason="not asked", raw="")
    view = PolicyView("HM-HOME-001", found=False)
    case = Case(claim, facts, unread, unread, [], view, exclusions=())
    return next(c for c in check_facts(case, FactCues()) if c.name == "damage_start_date")


@pytest.mark.parametrize("row", list(OWN_OR_OTHERS))
def test_a_start_date_verifies_only_for_the_claimant_s_own_loss(row: str) -> None:
    words, quote, day, whose = OWN_OR_OTHERS[row]
    check = start_date_check(words, quote, day)
    if whose is None:
        assert (check.status, check.problem) == ("verified", None)
    else:
        assert check.status == "unverified"
        assert check.problem == (
            f"the quote's sentence speaks of another's loss ({whose!r}), not the claimant's"
        )

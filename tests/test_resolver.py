"""The resolver's rules, one row per rule and reason code, against the sample home policy.

Each row is a case file shipped in examples/cases/, so `claims-crew resolve` can replay it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from claims_crew.models import AdjudicatorAnswer, Claim, ParseFailure, parse_adjudication
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver import (
    CLAUSE_QUOTES,
    Case,
    Resolution,
    apply_adjudication,
    quote_in,
    resolve,
)
from claims_crew.resolver.case_files import load_case
from claims_crew.resolver.config import ResolutionConfig, load_config, parse_config
from claims_crew.vocabulary import REASON_CODES
from claims_crew.vocabulary import RULES as RULE_NAMES
from tests.support.paths import ROOT

CASES = ROOT / "examples" / "cases"
RULES = load_config(ROOT / "config")

# file → (outcome, rule, winner, reason codes, missing facts)
TABLE: dict[str, tuple[str, str, str | None, list[str], list[str]]] = {
    "water-damage-start-unknown": (
        "ESCALATED", "conflict", None, ["needs_more_evidence"], ["damage_start_date"]
    ),
    # The agents do not say they rely on the start date; the code asks about it all the same.
    "water-damage-start-unknown-undeclared": (
        "ESCALATED", "conflict", None, ["needs_more_evidence"], ["damage_start_date"]
    ),
    # Intake gives a start date the claim never states: the rules treat it as unknown.
    "water-damage-start-guessed": (
        "ESCALATED", "conflict", None, ["needs_more_evidence", "fact_unverified"],
        ["damage_start_date"],
    ),
    "water-damage-start-known-agree": ("ACCEPTED", "agree", None, [], []),
    "water-damage-start-known-dispute": ("ADJUDICATION_REQUIRED", "dispute", None, [], []),
    "fabricated-clause": ("PREFERRED", "prefer", "policy", ["clause_not_found"], []),
    "misquote": ("PREFERRED", "prefer", "policy", ["quote_mismatch"], []),
    "exclusion-cited-for-covered": ("PREFERRED", "prefer", "fraud", ["kind_mismatch"], []),
    "neither-holds": ("ESCALATED", "neither", None, ["clause_not_found", "quote_mismatch"], []),
    "no-evidence": ("ESCALATED", "neither", None, ["no_evidence"], []),
    "parse-error-nan": ("ESCALATED", "checks", None, ["parse_error"], []),
    "answer-not-allowed": ("ESCALATED", "checks", None, ["parse_error"], []),
    "policy-not-found": ("ESCALATED", "checks", None, ["policy_not_found"], []),
    "policy-not-in-force": ("ESCALATED", "checks", None, ["policy_not_in_force"], []),
    "low-confidence": ("ESCALATED", "agree", None, ["low_confidence"], []),
    "confidence-gap": ("ESCALATED", "agree", None, ["confidence_gap"], []),
    "gate-large-amount": ("ESCALATED", "agree", None, ["policy_gate"], []),
    "gate-fraud-red-flags": (
        "ESCALATED", "prefer", None, ["clause_not_found", "policy_gate"], []
    ),
    "gate-high-risk-class": ("ESCALATED", "agree", None, ["policy_gate"], []),
    # A fire claim of £40,000: £39,750 payable, over the automatic authority limit of £25,000.
    "gate-over-authority": (
        "ESCALATED", "agree", None, ["policy_gate", "over_authority"], []
    ),
    "disputed-loss-date": (
        "ESCALATED", "conflict", None, ["needs_more_evidence"], ["date_of_loss"]
    ),
    "quote-normalised": ("ACCEPTED", "agree", None, [], []),
    "same-answer-one-side-fails": ("PREFERRED", "prefer", "policy", ["clause_not_found"], []),
    # One side alone must reach the floor two agreeing sides need (prefer.min_confidence).
    "prefer-below-floor": (
        "ESCALATED", "prefer", None, ["clause_not_found", "low_confidence"], []
    ),
    # Quotes that re-read true but that policy_lookup never returned decide nothing alone.
    "agree-not-tool-sourced": ("ESCALATED", "agree", None, ["not_tool_sourced"], []),
    "prefer-not-tool-sourced": (
        "ESCALATED", "prefer", None, ["kind_mismatch", "not_tool_sourced"], []
    ),
    # The flood claim C-1045: both agents cite a real grant they looked up, and neither the
    # flood exclusion its words fit; alone, a side that cited badly does not win either.
    "agree-exclusion-unchecked": ("ESCALATED", "agree", None, ["exclusion_unchecked"], []),
    "prefer-exclusion-unchecked": (
        "ESCALATED", "prefer", None, ["clause_not_found", "exclusion_unchecked"], []
    ),
    # The losing side read the exclusion that fits, but misquoted it: a dispute, not a win.
    "prefer-exclusion-fits-loser": (
        "ADJUDICATION_REQUIRED", "prefer", None, ["quote_mismatch"], []
    ),
    # An agent may say it cannot tell, and why; the question follows its reason.
    "abstain-needs-more-evidence": (
        "ESCALATED", "abstain", None, ["abstained", "needs_more_evidence"], ["damage_start_date"]
    ),
    "abstain-interpretation": (
        "ESCALATED", "abstain", None, ["abstained", "interpretation_unresolved"], []
    ),
    "abstain-without-reason": ("ESCALATED", "checks", None, ["parse_error"], []),
    # The seed's agreement, its description telling the AI reviewer to answer covered.
    "agree-instructions-in-claim": ("ESCALATED", "agree", None, ["instructions_in_claim"], []),
    # The seed's agreement, the plumber's e-mail carrying an invoice no reader could open (and
    # a logo, decoration, that holds nothing back).
    "agree-unread-part": ("ESCALATED", "agree", None, ["unread_part"], []),
    # Both quote the form's 4.2(b), which HM-25-00417's endorsement HM-E-07 replaced.
    "superseded-wording": ("ESCALATED", "neither", None, ["superseded_wording"], []),
}  # fmt: skip


def _case(name: str, library: PolicyLibrary, rules: ResolutionConfig = RULES) -> Case:
    return load_case(CASES / f"{name}.json", library, rules)


def test_every_example_case_is_in_the_table() -> None:
    assert sorted(p.stem for p in CASES.glob("*.json")) == sorted(TABLE)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_rule_table(name: str, sample_library: PolicyLibrary) -> None:
    outcome, rule, winner, codes, missing = TABLE[name]
    resolution = resolve(_case(name, sample_library), RULES)
    assert (resolution.outcome, resolution.rule, resolution.winner) == (outcome, rule, winner)
    assert resolution.reason_codes == codes
    assert resolution.missing_facts == missing
    assert resolution.trail, "every resolution keeps its trail"
    assert resolution.trail[0].rule == "checks"
    if outcome == "ESCALATED":
        assert resolution.question, "an escalation always asks the person something"
        assert resolution.answer is None
    assert resolution.config_sha256 == RULES.digest()


def test_table_covers_every_rule_and_reason_code() -> None:
    rules = {row[1] for row in TABLE.values()} | {"adjudicator"}
    assert rules >= set(RULE_NAMES) - {"reread", "gates"}  # those two never decide alone
    codes = {c for row in TABLE.values() for c in row[3]}
    adjudication_codes = {"adjudicator_invalid", "interpretation_unresolved"}
    # endorsement_unconfirmed needs a reading nobody confirmed, and the samples' all are:
    # tests/test_reading_confirmed.py decides a claim on one confirmed, unconfirmed and changed.
    others = {"policy_unreadable", "endorsement_unconfirmed"}
    assert codes | adjudication_codes | others >= set(REASON_CODES)


def test_seed_water_example_both_ways(sample_library: PolicyLibrary) -> None:
    """Unknown damage start: a person is asked exactly that; known: the crew can settle it."""
    unknown = resolve(_case("water-damage-start-unknown", sample_library), RULES)
    assert unknown.question is not None and "damage_start_date" in unknown.question
    sides = unknown.sides
    assert sides["policy"].holds and sides["fraud"].holds
    assert sides["policy"].source_checked and not sides["fraud"].source_checked
    assert sides["fraud"].clauses[0].kind == "exclusion"
    assert "seepage" in (sides["fraud"].clauses[0].text or "")
    known = resolve(_case("water-damage-start-known-dispute", sample_library), RULES)
    assert known.outcome == "ADJUDICATION_REQUIRED"


def test_gate_keeps_what_the_outcome_would_have_been(sample_library: PolicyLibrary) -> None:
    resolution = resolve(_case("gate-large-amount", sample_library), RULES)
    assert resolution.would_have_been == "ACCEPTED"
    assert resolution.gates_tripped == ["large_amount"]
    assert resolution.trail[-1].rule == "gates" and resolution.trail[-1].fired
    flags = resolve(_case("gate-fraud-red-flags", sample_library), RULES)
    assert flags.would_have_been == "PREFERRED" and flags.gates_tripped == ["fraud_red_flags"]


def test_outcome_not_automatic_is_escalated(sample_library: PolicyLibrary) -> None:
    data = RULES.model_dump(by_alias=True)
    strict = parse_config({**data, "automatic_outcomes": ["ACCEPTED"]})
    resolution = resolve(_case("fabricated-clause", sample_library, strict), strict)
    assert resolution.outcome == "ESCALATED"
    assert resolution.would_have_been == "PREFERRED"
    assert "policy_gate" in resolution.reason_codes


def test_tool_sourced_is_computed_from_the_ledger_only(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    data = json.loads((CASES / "water-damage-start-unknown.json").read_text(encoding="utf-8"))
    data["claims"]["fraud"]["source_checked"] = True  # the model claiming it looked 7.1 up
    data["ledger"].append({"agent": "fraud", "tool": "other_tool", "args": {}, "returned": ["7.1"]})
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    resolution = resolve(load_case(path, sample_library, RULES), RULES)
    assert not resolution.sides["fraud"].source_checked
    assert resolution.sides["policy"].clauses[0].tool_sourced


def test_resolving_is_deterministic(sample_library: PolicyLibrary) -> None:
    case = _case("water-damage-start-unknown", sample_library)
    assert resolve(case, RULES) == resolve(case, RULES)


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ("sudden and accidental discharge", True),
        ("SUDDEN   and\naccidental DISCHARGE", True),
        ("“sudden and accidental discharge”", True),
        ("sudden and accidental … household appliance", True),
        ("household appliance … sudden and accidental", False),  # order matters
        ("sudden or accidental discharge", False),
        ("", False),
        ("...", False),
    ],
)
def test_quote_matching(quote: str, found: bool) -> None:
    text = CLAUSE_QUOTES.read(
        "(b) sudden and acci-\ndental discharge of water or steam from within a plumbing, "
        "heating or air conditioning system or a household appliance;"
    )
    assert quote_in(quote, text) is found


# ---- the adjudicator's answer, checked in code -----------------------------------------------


def _dispute(library: PolicyLibrary) -> tuple[Case, Resolution]:
    case = _case("water-damage-start-known-dispute", library)
    resolution = resolve(case, RULES)
    assert resolution.outcome == "ADJUDICATION_REQUIRED"
    return case, resolution


ADJUDICATIONS: dict[str, tuple[str, str, str | None, list[str]]] = {
    # raw answer → (outcome, rule, winner, reason codes)
    '{"choice": "policy", "reason": "A burst joint is sudden; 7.1 needs weeks of seepage.", '
    '"evidence": ["4.2(b)"]}': ("ADJUDICATED", "adjudicator", "policy", []),
    # Fraud cited 7.1 from memory: the adjudicator's choice would rest on no looked-up clause.
    '{"choice": "fraud", "reason": "The leak ran for weeks.", "evidence": ["7.1"]}': (
        "ESCALATED", "adjudicator", None, ["not_tool_sourced"]
    ),
    '{"choice": "policy", "reason": "", "evidence": ["4.2(b)"]}': (
        "ESCALATED", "adjudicator", None, ["adjudicator_invalid"]
    ),
    '{"choice": "policy", "reason": "   ", "evidence": ["4.2(b)"]}': (
        "ESCALATED", "adjudicator", None, ["adjudicator_invalid"]
    ),
    '{"choice": "policy", "reason": "It is sudden.", "evidence": []}': (
        "ESCALATED", "adjudicator", None, ["adjudicator_invalid"]
    ),
    '{"choice": "policy", "reason": "It is sudden.", "evidence": ["4.2(a)"]}': (
        "ESCALATED", "adjudicator", None, ["adjudicator_invalid"]
    ),
    '{"choice": "fraud", "reason": "Seepage.", "evidence": ["4.2(b)"]}': (
        "ESCALATED", "adjudicator", None, ["adjudicator_invalid"]
    ),
    '{"choice": "both", "reason": "Either.", "evidence": ["4.2(b)"]}': (
        "ESCALATED", "adjudicator", None, ["adjudicator_invalid"]
    ),
    "I think the policy side is right.": (
        "ESCALATED", "adjudicator", None, ["adjudicator_invalid"]
    ),
    '{"choice": "escalate", "reason": "The wording does not say how long a leak may run.", '
    '"evidence": []}': ("ESCALATED", "adjudicator", None, ["interpretation_unresolved"]),
}  # fmt: skip


@pytest.mark.parametrize("raw", sorted(ADJUDICATIONS))
def test_adjudicator_answer_table(raw: str, sample_library: PolicyLibrary) -> None:
    outcome, rule, winner, codes = ADJUDICATIONS[raw]
    case, dispute = _dispute(sample_library)
    resolution, check = apply_adjudication(case, RULES, dispute, parse_adjudication(raw))
    assert (resolution.outcome, resolution.rule, resolution.winner) == (outcome, rule, winner)
    assert resolution.reason_codes == codes
    assert check.valid is ("adjudicator_invalid" not in codes)
    if "adjudicator_invalid" in codes:
        assert check.problems and check.raw.strip()
    if outcome == "ADJUDICATED":
        expected = {"policy": "covered", "fraud": "not_covered"}[winner or ""]
        assert resolution.answer == expected
    assert [s.rule for s in resolution.trail].count("adjudicator") == 1


def test_adjudicated_side_that_looked_its_clause_up_wins(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """The same ruling for fraud stands once policy_lookup returned 7.1 to fraud; naming only a
    clause fraud cited from memory does not."""
    data = json.loads((CASES / "water-damage-start-known-dispute.json").read_text("utf-8"))
    data["claims"]["fraud"]["evidence"].append(
        {"clause_id": "7.1(a)", "quote": "over a period of weeks or months"}
    )
    data["ledger"].append(
        {"agent": "fraud", "tool": "policy_lookup", "args": {}, "returned": ["7.1"]}
    )
    case = _write_case(tmp_path, data, sample_library)
    dispute = resolve(case, RULES)
    assert dispute.outcome == "ADJUDICATION_REQUIRED"
    looked_up = AdjudicatorAnswer(choice="fraud", reason="Weeks of seepage.", evidence=["7.1"])
    resolution, _ = apply_adjudication(case, RULES, dispute, looked_up)
    assert (resolution.outcome, resolution.winner, resolution.answer) == (
        "ADJUDICATED",
        "fraud",
        "not_covered",
    )
    remembered = AdjudicatorAnswer(choice="fraud", reason="Weeks.", evidence=["7.1(a)"])
    resolution, check = apply_adjudication(case, RULES, dispute, remembered)
    assert check.valid
    assert (resolution.outcome, resolution.reason_codes) == ("ESCALATED", ["not_tool_sourced"])
    assert (resolution.would_have_been, resolution.would_have_won) == ("ADJUDICATED", "fraud")
    assert "7.1(a) from memory" in (resolution.question or "")


def _variant(**changes: Any) -> ResolutionConfig:
    """The shipped rules with some settings changed, as resolution.yaml would give them."""
    return parse_config({**RULES.model_dump(by_alias=True), **changes})


def _write_case(tmp_path: Path, data: dict[str, Any], library: PolicyLibrary) -> Case:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_case(path, library, RULES)


def test_prefer_floor_defaults_to_the_agreement_floor(sample_library: PolicyLibrary) -> None:
    case = _case("prefer-below-floor", sample_library)  # policy alone holds, at 0.82
    escalated = resolve(case, RULES)
    assert RULES.prefer.min_confidence is None and RULES.prefer_floor == 0.85
    assert (escalated.would_have_been, escalated.would_have_won) == ("PREFERRED", "policy")
    assert escalated.question is not None and "0.82" in escalated.question
    lower_agreement = _variant(accept={"min_confidence": 0.8, "max_confidence_gap": 0.25})
    assert resolve(case, lower_agreement).outcome == "PREFERRED"
    own_floor = _variant(prefer={"min_confidence": 0.8})
    assert (resolve(case, own_floor).outcome, resolve(case, own_floor).winner) == (
        "PREFERRED",
        "policy",
    )
    assert resolve(case, _variant(prefer={"min_confidence": 0.9})).outcome == "ESCALATED"


def test_tool_sourced_agreement_either_or_both(sample_library: PolicyLibrary) -> None:
    """Policy looked 4.2(b) up and fraud quoted it from memory: one side suffices by default."""
    case = _case("water-damage-start-known-agree", sample_library)
    assert resolve(case, RULES).outcome == "ACCEPTED"
    both = _variant(tool_sourced={"required": True, "agreement": "both"})
    resolution = resolve(case, both)
    assert (resolution.outcome, resolution.reason_codes) == ("ESCALATED", ["not_tool_sourced"])
    assert "to fraud (fraud cited 4.2(b) from memory)" in resolution.reason
    off = _variant(tool_sourced={"required": False, "agreement": "either"})
    from_memory = _case("agree-not-tool-sourced", sample_library)
    assert resolve(from_memory, off).outcome == "ACCEPTED"
    assert resolve(from_memory, RULES).would_have_been == "ACCEPTED"


def test_one_abstention_escalates_only_when_configured(sample_library: PolicyLibrary) -> None:
    case = _case("abstain-interpretation", sample_library)
    assert resolve(case, RULES).rule == "abstain"
    both = _variant(abstention={"escalate_when": "both"})
    # Fraud abstains; policy alone holds, but at 0.82, under the prefer floor.
    alone = resolve(case, both)
    assert (alone.outcome, alone.rule) == ("ESCALATED", "prefer")
    assert alone.reason_codes == ["abstained", "low_confidence"]
    assert [s.rule for s in alone.trail if s.rule == "abstain"] == ["abstain"]
    assert not next(s for s in alone.trail if s.rule == "abstain").fired
    assert isinstance(case.policy, Claim)
    sure = replace(case, policy=case.policy.model_copy(update={"confidence": 0.9}))
    assert (resolve(sure, both).outcome, resolve(sure, both).winner) == ("PREFERRED", "policy")
    assert resolve(sure, RULES).outcome == "ESCALATED"
    # Two abstentions escalate either way.
    twice = replace(case, policy=case.fraud)
    for rules in (RULES, both):
        resolution = resolve(twice, rules)
        assert (resolution.rule, resolution.reason_codes) == (
            "abstain",
            ["abstained", "interpretation_unresolved"],
        )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"answer": "covered", "abstain_reason": "needs_more_evidence"}, "also abstains"),
        ({"answer": "uncertain"}, "without an abstain_reason"),
    ],
)
def test_an_abstention_is_one_thing_or_the_other(
    sample_library: PolicyLibrary, tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    data = json.loads((CASES / "water-damage-start-known-agree.json").read_text("utf-8"))
    data["claims"]["fraud"].update(change)
    resolution = resolve(_write_case(tmp_path, data, sample_library), RULES)
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "checks")
    assert resolution.reason_codes == ["parse_error"]
    assert problem in resolution.trail[0].detail


def test_abstention_not_allowed_is_a_parse_error(sample_library: PolicyLibrary) -> None:
    definite = _variant(allowed_answers=["covered", "not_covered"])
    resolution = resolve(_case("abstain-interpretation", sample_library, definite), definite)
    assert (resolution.rule, resolution.reason_codes) == ("checks", ["parse_error"])


def test_adjudicated_outcome_still_passes_the_gates(sample_library: PolicyLibrary) -> None:
    case, dispute = _dispute(sample_library)
    gated = parse_config(
        {**RULES.model_dump(by_alias=True), "automatic_outcomes": ["ACCEPTED", "PREFERRED"]}
    )
    answer = AdjudicatorAnswer(choice="policy", reason="Sudden.", evidence=["4.2(b)"])
    resolution, check = apply_adjudication(case, gated, dispute, answer)
    assert check.valid
    assert resolution.outcome == "ESCALATED" and resolution.would_have_been == "ADJUDICATED"


def test_only_a_dispute_is_adjudicated(sample_library: PolicyLibrary) -> None:
    case = _case("water-damage-start-unknown", sample_library)
    with pytest.raises(ValueError, match="only an interpretation dispute"):
        apply_adjudication(case, RULES, resolve(case, RULES), ParseFailure(reason="x", raw="x"))


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"accept": {"min_confidence": 1.5}}, "accept.min_confidence"),
        ({"accept": {"max_confidence_gap": -0.1}}, "accept.max_confidence_gap"),
        ({"automatic_outcomes": ["ACCEPTED", "APPROVED"]}, "automatic_outcomes"),
        ({"automatic_outcomes": ["ESCALATED"]}, "ESCALATED always goes to a person"),
        ({"gates": [{"name": "g", "field": "claim_file.premium", "above": 1}]}, "unknown field"),
        ({"gates": [{"name": "g", "field": "claim_file.amount"}]}, "exactly one of"),
        ({"evidence_kinds": {"covered": ["grant"]}}, "no kinds for answer"),
        ({"evidence_kinds": {"covered": ["grant"], "not_covered": ["clause"]}}, "evidence_kinds"),
        ({"thresholds": {}}, "Extra inputs are not permitted"),
        ({"prefer": {"min_confidence": 1.5}}, "prefer.min_confidence"),
        ({"tool_sourced": {"required": "sometimes"}}, "tool_sourced.required"),
        ({"tool_sourced": {"agreement": "all"}}, "tool_sourced.agreement"),
        ({"abstention": {"escalate_when": "one"}}, "abstention.escalate_when"),
        ({"allowed_answers": ["covered", "uncertain"]}, "two answers besides uncertain"),
        (
            {
                "evidence_kinds": {
                    "covered": ["grant"],
                    "not_covered": ["exclusion"],
                    "uncertain": ["definition"],
                }
            },
            "uncertain is an abstention",
        ),
    ],
)
def test_bad_resolution_config_is_refused(patch: dict[str, Any], message: str) -> None:
    from claims_crew.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        parse_config({**RULES.model_dump(by_alias=True), **patch})


def test_unreadable_policy_pdf_is_a_typed_abstention(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a pdf\n")
    data = json.loads((CASES / "misquote.json").read_text(encoding="utf-8"))
    data["policy"] = str(broken)
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    resolution = resolve(load_case(path, sample_library, RULES), RULES)
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "checks")
    assert resolution.reason_codes == ["policy_unreadable"]
    assert "malformed" in resolution.trail[-1].detail

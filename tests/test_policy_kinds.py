"""Clause kinds read from headings and from a clause's own words, with the reason for each.

The rules are a table here, one row per rule; the real policies are held to the accuracy that
bench/policy_kinds.py measures against the labels in bench/policy_gold/, so it can only rise.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.kinds import ClauseWords, heading_kind, settle, words_kind
from claims_crew.policy.query import search_terms
from claims_crew.policy.segment import segment
from tests.support.paths import ROOT, SHARED_POLICIES, absent
from tests.support.real_policies import OpenReal
from tests.support.scripts import load_script


@pytest.mark.parametrize(
    ("words", "inherited", "kind", "reason"),
    [
        ("We will not pay for loss caused by flood.", None, "exclusion", "We will not pay"),
        ("This policy does not cover wear and tear.", None, "exclusion", "does not cover"),
        ("Racing is excluded.", None, "exclusion", "is excluded"),
        ("We will pay for direct physical loss.", None, "grant", "We will pay"),
        ("The Company shall indemnify the Insured.", None, "grant", "The Company shall indemnify"),
        ('"Auto" means a land motor vehicle.', None, "definition", '"Auto" means'),
        ("You must tell us within 30 days.", None, "condition", "You must"),
        ("It is a condition of this policy that", None, "condition", "It is a condition"),
        ("We will pay no more than $500 for jewelry.", None, "limit", "We will pay no more than"),
        ("The most we will pay is the limit shown.", None, "limit", "The most we will pay"),
        ("A deductible of $250 applies.", None, "limit", "deductible"),
        # The first explicit wording decides.
        ("We will pay first aid. We will not pay for you.", None, "grant", "We will pay"),
        # An exception to an exclusion gives cover back.
        ("We do cover motor vehicles not required to be registered.", "exclusion", "grant", ""),
        # Words that only explain the heading above them yield to it.
        ("Earth Movement means earthquake.", "exclusion", None, ""),
        ("If a claim is fraudulent, we will not pay it.", "condition", None, ""),
        ("Any admission of liability without our written consent.", "exclusion", None, ""),
        ("The excess of £100 per person.", "exclusion", "limit", "The excess of"),
        ("Items left in a car overnight.", None, None, ""),
        # Opening words beat a condition heading; a consequence inside a sentence does not.
        ("We will not be liable to pay for treatment.", "condition", "exclusion", ""),
        # Benefits that do not stack are a limit, not an exclusion.
        ("Benefits will not be payable under more than one section.", None, "limit", ""),
        ("If Your original means of transport cannot be used, we return you.", None, None, ""),
        ("Special Conditions applicable to Personal Accident Covers:", None, "condition", ""),
        (
            "In the event of disablement, the Insured will be under obligation:",
            None,
            "condition",
            "",
        ),
        ("London E14 9SR Telephone 0800 015 0365", "grant", "other", ""),
        ("The insurance does not apply:", None, "exclusion", "The insurance does not apply"),
        # What the policyholder must do for the cover to hold is a condition, under a grant too.
        (
            "Cover is subject to you taking all reasonable steps to prevent loss or damage.",
            "grant",
            "condition",
            "Cover is subject to you",
        ),
        ("Claims are conditional upon the insured reporting the theft.", None, "condition", ""),
        (
            "Reasonable precautions Cover is subject to you taking all reasonable steps.",
            "grant",
            "condition",
            "Cover is subject to you",
        ),
        # Cover subject to the policy's own terms is no duty of anyone's.
        ("Cover is subject to the limits shown in the schedule.", "grant", None, ""),
        ("We will pay, subject to you paying the excess.", None, "grant", "We will pay"),
    ],
)
def test_words_kind(words: str, inherited: str | None, kind: str | None, reason: str) -> None:
    call = words_kind(words, inherited)
    assert (call.kind if call else None) == kind
    if call is not None and reason:
        assert call.reason == f"words: {reason!r}"


def test_the_home_samples_reasonable_precautions_is_a_condition(
    home_policy: PolicyDocument,
) -> None:
    """2.3 sits under "THE COVER WE PROVIDE", whose grant it inherited, but its words say what
    the policyholder must do for cover to hold; its siblings stay grants."""
    clauses = {c.id: c for c in home_policy.clauses}
    assert (clauses["2.3"].kind, clauses["2.3"].kind_reason) == (
        "condition",
        "words: 'Cover is subject to you'",
    )
    assert clauses["2.1"].kind == clauses["2.2"].kind == "grant"


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("SECTION I – EXCLUSIONS", "exclusion"),
        ("General Exceptions", "exclusion"),
        ("What is not covered", "exclusion"),
        ("What is covered", "grant"),
        ("Insuring Agreement", "grant"),
        ("DEFINITIONS", "definition"),
        ("Duties After Loss", "condition"),
        ("Limit Of Liability", "limit"),
        ("Cancellation", "other"),
        ("Trip Cancellation Cover", "grant"),
        ("Territorial Jurisdiction", "other"),
        ("Autos", None),
        ("Cancellation by You at any Time", "other"),
        ("Claim Settlement:", "other"),
        ("What should I do before I submit a claim?", "condition"),
        ("When Are You Not Covered if You are pregnant?", "exclusion"),
    ],
)
def test_heading_kind(title: str, kind: str | None) -> None:
    call = heading_kind(title)
    assert (call.kind if call else None) == kind
    if call is not None:
        assert call.reason.startswith("title: ")


def test_inheritance_names_the_clause_that_made_the_call() -> None:
    top = ClauseWords("4", "General Exceptions", 2, "")
    call, carried = settle(top, None)
    assert (call.kind, call.reason) == ("exclusion", "title: General Exceptions")
    item = ClauseWords("4.1", "", 2, "Driven by a person who is not an Authorised Driver.")
    call, passed = settle(item, carried)
    assert (call.kind, call.reason) == ("exclusion", "inherited from 4 (title: General Exceptions)")
    assert passed == carried
    assert settle(ClauseWords("x", "", 3, "Some words."), None)[0] == ("other", "default")


GENERAL_EXCEPTIONS = """\
SECTION 4 - GENERAL EXCEPTIONS
This policy does not apply to:
4.1 Driven by a person who is not an Authorised Driver
4.2 Subsidence, flooding, water pollution
4.3 However, we do cover emergency treatment after an accident.
SECTION 5 - DEFINITIONS
5.1 "Premium" means the amount you pay us.
5.2 "Road" means any public highway.
SECTION 6 - COVER
We will pay for loss of or damage to your car.
6.1 We will not pay more than the market value.
6.2 You must keep your car in a roadworthy condition.
"""


@pytest.mark.parametrize(
    ("clause_id", "kind", "reason"),
    [
        ("Section 4", "exclusion", "title: GENERAL EXCEPTIONS"),
        ("4.1", "exclusion", "inherited from Section 4 (title: GENERAL EXCEPTIONS)"),
        ("4.2", "exclusion", "inherited from Section 4 (title: GENERAL EXCEPTIONS)"),
        ("4.3", "grant", "words: 'However, we do cover'"),
        ("5.1", "definition", "words: '\"Premium\" means'"),
        ("Section 6", "grant", "title: COVER"),
        ("6.1", "limit", "words: 'We will not pay more than'"),
        ("6.2", "condition", "words: 'You must'"),
    ],
)
def test_segmented_clauses_carry_kind_and_reason(clause_id: str, kind: str, reason: str) -> None:
    clauses = {c.id: c for c in segment([GENERAL_EXCEPTIONS])}
    assert (clauses[clause_id].kind, clauses[clause_id].kind_reason) == (kind, reason)


def test_show_and_clauses_json_carry_the_kind_reason() -> None:
    shown = CliRunner().invoke(main, ["policy", "show", "HM-HOME-001", "7.1(a)", "--json"])
    assert shown.exit_code == 0, shown.output
    detail = json.loads(shown.stdout)
    assert detail["kind"] == "exclusion"
    assert detail["kind_reason"].startswith("inherited from 7")
    listed = CliRunner().invoke(main, ["policy", "clauses", "HM-HOME-001", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)["clauses"]
    assert rows and all(row["kind_reason"] for row in rows)


@pytest.mark.parametrize(
    ("words", "present", "absent"),
    [
        # What the claimant pays is the excess; what the policy pays is the limit.
        ("how much do I pay myself on each claim", {"deductible", "excess"}, {"limit"}),
        ("how much will you pay for my camera", {"limit", "maximum"}, {"deductible"}),
        ("I had to buy clothes", {"clothing"}, set()),
    ],
)
def test_search_terms_say_it_in_the_policys_words(
    words: str, present: set[str], absent: set[str]
) -> None:
    terms = set(search_terms(words))
    assert present <= terms and not absent & terms


# --- the real policies against the gold labels ---------------------------------------------

# The levels reached; raise them when the classifier or the search improves, never lower them.
KIND_ACCURACY_FLOOR = {
    "us-auto-allstate": 0.93,
    "au-card-travel": 0.91,
    "uk-travel": 0.96,
    "in-group-travel": 0.95,
    "us-business-auto": 1.0,
    "us-homeowners-ho3": 1.0,
    "in-health-mediclaim": 0.98,
}
OVERALL_KIND_ACCURACY_FLOOR = 0.96
SEARCH_HIT_AT_3_FLOOR = 0.92


@pytest.fixture(scope="module")
def scores(real_doc: OpenReal) -> dict[str, Any]:
    if not SHARED_POLICIES.exists():
        pytest.skip(absent(SHARED_POLICIES))
    bench = load_script(ROOT / "bench" / "policy_kinds.py")
    golds = [g for g in bench.load_gold() if g.name in KIND_ACCURACY_FLOOR]
    if not golds:
        pytest.skip("no gold labels in bench/policy_gold/")
    return {g.name: bench.score(g, real_doc(g.file).doc) for g in golds}


@pytest.mark.parametrize("name", sorted(KIND_ACCURACY_FLOOR))
def test_kind_accuracy_per_policy(scores: dict[str, Any], name: str) -> None:
    if name not in scores:
        pytest.skip(f"no gold file for {name}")
    score = scores[name]
    wrong = [(label.id, label.kind, found.kind if found else None) for label, found in score.wrong]
    assert score.accuracy >= KIND_ACCURACY_FLOOR[name], wrong


def test_kind_accuracy_overall_and_search_hits(scores: dict[str, Any]) -> None:
    right = sum(s.right for s in scores.values())
    labels = sum(s.labels for s in scores.values())
    hit3 = sum(s.hit3 for s in scores.values())
    searches = sum(s.searches for s in scores.values())
    assert labels >= 200 and right / labels >= OVERALL_KIND_ACCURACY_FLOOR
    assert searches and hit3 / searches >= SEARCH_HIT_AT_3_FLOOR

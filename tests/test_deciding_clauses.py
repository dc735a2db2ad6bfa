"""The clauses a decision rests on are read in one order by all that name them: the amount (and
`review show` beside it), the amount a person's covered decision pays, the letter, and the
external code of a refusal. A side that cites a clause from memory before the one policy_lookup
returned must not have its letter quote the first while the amount rests on the second."""

from __future__ import annotations

from dataclasses import replace

from claims_crew.claim_files import load_claim
from claims_crew.letters.content import deciding_clauses, letter_for
from claims_crew.models import ParseFailure
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import ClauseCheck, Resolution, SideReview
from claims_crew.resolver.authority import decision_payable
from claims_crew.resolver.case import Case
from claims_crew.resolver.deciding import deciding_checks, sides_answering, winning_sides
from claims_crew.resolver.external_codes import load_external_codes
from claims_crew.resolver.reread import person_payable, policy_view, schedule_for
from claims_crew.store.letters import DecisionOnFile
from claims_crew.vocabulary import Side
from tests.support.paths import ROOT

INBOX = ROOT / "claims" / "inbox"


def check(
    cited: str, *, sourced: bool, kind: str = "grant", clause_id: str | None = None
) -> ClauseCheck:
    """A verified clause of a kind that supports its side's answer."""
    return ClauseCheck(
        cited=cited,
        clause_id=clause_id or cited,
        kind=kind,
        title=f"Clause {cited}",
        status="verified",
        supports_answer=True,
        tool_sourced=sourced,
        text=f"The words of {cited}.",
    )


def side(name: Side, answer: str, *clauses: ClauseCheck) -> SideReview:
    return SideReview(side=name, parsed=True, answer=answer, holds=True, clauses=list(clauses))


def agreed(answer: str, policy: list[ClauseCheck], fraud: list[ClauseCheck]) -> Resolution:
    return Resolution(
        outcome="ACCEPTED",
        rule="agree",
        answer=answer,
        reason="both agree",
        sides={"policy": side("policy", answer, *policy), "fraud": side("fraud", answer, *fraud)},
    )


def test_tool_sourced_clauses_come_first_then_the_order_cited() -> None:
    resolution = agreed(
        "covered",
        [
            check("4.2(b)", sourced=False),
            check("4.4(a)", sourced=True),
            check("4.3", sourced=False),
        ],
        [check("4.3(a)", sourced=True)],
    )
    found = deciding_checks(resolution, winning_sides(resolution))
    assert [c.cited for c in found] == ["4.4(a)", "4.3(a)", "4.2(b)", "4.3"]


def test_a_clause_cited_twice_is_kept_once_as_the_tool_returned_it() -> None:
    resolution = agreed(
        "covered",
        [check("clause 4.4a", sourced=False, clause_id="4.4(a)")],
        [check("4.4(a)", sourced=True)],
    )
    [kept] = deciding_checks(resolution, winning_sides(resolution))
    assert (kept.cited, kept.tool_sourced) == ("4.4(a)", True)


def test_two_clauses_sharing_a_label_are_both_kept() -> None:
    resolution = agreed("covered", [check("4.2", sourced=True), check("4.2~2", sourced=True)], [])
    found = deciding_checks(resolution, winning_sides(resolution))
    assert [c.clause_id for c in found] == ["4.2", "4.2~2"]


def test_clauses_that_are_not_verified_or_do_not_support_are_left_out() -> None:
    wrong_kind = check("7.2", sourced=True).model_copy(update={"supports_answer": False})
    misquoted = check("4.2(b)", sourced=True).model_copy(update={"status": "quote_mismatch"})
    resolution = agreed("covered", [wrong_kind, misquoted, check("4.4(a)", sourced=False)], [])
    assert [c.cited for c in deciding_checks(resolution, ["policy"])] == ["4.4(a)"]


def test_the_winning_side_is_read_first_among_those_giving_the_answer() -> None:
    resolution = agreed(
        "covered", [check("4.2(b)", sourced=True)], [check("4.4(a)", sourced=True)]
    ).model_copy(update={"outcome": "PREFERRED", "rule": "prefer", "winner": "fraud"})
    assert sides_answering(resolution, "covered") == ["fraud", "policy"]
    assert [c.clause_id for c in deciding_clauses(resolution, "covered")] == ["4.4(a)", "4.2(b)"]


def test_the_letter_names_first_the_clause_the_amount_rests_on(
    sample_library: PolicyLibrary,
) -> None:
    claim_file = load_claim(INBOX / "C-1044.yaml").claim
    # The policy side cites the water clause from memory before the theft clause it looked up.
    resolution = agreed(
        "covered",
        [check("4.2(b)", sourced=False), check("4.4(a)", sourced=True)],
        [check("4.4(a)", sourced=True)],
    )
    view = replace(
        policy_view(sample_library, claim_file.policy_id, ["4.2(b)", "4.4(a)"]),
        schedule=schedule_for(sample_library, claim_file.policy_id, claim_file),
    )
    unread = ParseFailure(reason="not asked", raw="")
    case = Case(claim_file, unread, unread, unread, [], view, exclusions=())
    payable = decision_payable(case, resolution)
    assert payable is not None and payable.deciding_clause == "4.4(a)"
    # A person deciding covered on a claim with no amount kept gets the same clause.
    assert person_payable(sample_library, claim_file, resolution).deciding_clause == "4.4(a)"
    on_file = DecisionOnFile(
        claim_id=claim_file.claim_id,
        claim=claim_file,
        outcome="ACCEPTED",
        answer="covered",
        decided_by="rules",
        decided_at="2025-09-20T10:00:00+00:00",
        resolution=resolution.with_payable(payable),
        escalation_open=False,
        review=None,
        models={},
        entry_seq=1,
    )
    letter = letter_for(on_file)
    assert [c.clause_id for c in letter.clauses] == ["4.4(a)", "4.2(b)"]
    assert letter.reason.startswith("The loss you describe is covered by clause 4.4(a)")


def test_a_refusal_is_coded_by_the_clause_its_letter_names_first() -> None:
    codes = load_external_codes(ROOT / "config")
    assert codes is not None
    # A condition recalled from memory, then the exclusion policy_lookup returned.
    resolution = agreed(
        "not_covered",
        [
            check("6.1", sourced=False, kind="condition"),
            check("7.2", sourced=True, kind="exclusion"),
        ],
        [],
    ).model_copy(update={"outcome": "PREFERRED", "rule": "prefer", "winner": "policy"})
    assert codes.of_resolution(resolution) == "D10"
    [first, _] = deciding_clauses(resolution, "not_covered")
    assert (first.clause_id, first.kind) == ("7.2", "exclusion")
    assert codes.for_answer("not_covered", first.kind) == codes.of_resolution(resolution)


def test_a_person_deciding_covered_gets_no_amount_without_a_supporting_clause(
    sample_library: PolicyLibrary,
) -> None:
    claim_file = load_claim(INBOX / "C-1044.yaml").claim
    resolution = agreed("not_covered", [check("7.2", sourced=True, kind="exclusion")], [])
    payable = person_payable(sample_library, claim_file, resolution)
    assert payable.amount is None and payable.deciding_clause is None

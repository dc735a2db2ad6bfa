"""Claims on policies as issued, through the scripted provider and the real crew: the wording a
claim is decided on is the form with every endorsement in force on its date of loss applied.

HM-25-00417 is on the home form HM-HOME-001 with HM-E-07 from its first day (4.2(b) replaced:
an appliance must be less than 10 years old) and HM-E-09 from 2025-07-01 (exclusion 7.12, hot
tubs, added); MA-25-0193 is on the auto form with MA-E-12 from 2025-09-01, mid-term (exclusion
II.B.8, ride-sharing, added). A quote of the form's replaced words is not verified; a claim
before an endorsement takes effect is decided without it; the letter quotes the amended text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import ClauseCheck, Resolution
from claims_crew.resolver.reread import schedule_for
from tests.support.issued_policies import (
    AMENDED_WATER,
    EITHER_WATER,
    FORM_WATER,
    HOT_TUB_CLAIM,
    HOT_TUB_EXCLUSION,
    RIDE_SHARE_CLAIM,
    RIDE_SHARE_CLAUSE,
    RIDE_SHARE_ESTIMATE,
    RIDE_SHARE_EXCLUSION,
    WASHER_CLAIM,
    WASHER_NOTE,
)
from tests.support.letters import pdf_text
from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, StartServer, ToolCall
from tests.support.provider import (
    CrewScript,
    Reviewed,
    Scripted,
    answer,
    review_claim,
    sample_copy,
)
from tests.support.sample_inbox import NO_FACTS, claim_answer

pytestmark = pytest.mark.slow

HOME, AUTO = "HM-HOME-001", "MR-AUTO-001"


def looks_up(clauses: list[str], payload: dict[str, Any], policy_id: str = HOME) -> Scripted:
    """A reviewer that calls policy_lookup for each of `clauses` in turn, then answers."""

    def reply(request: ChatRequest) -> Reply:
        asked = len(request.tool_results)
        if asked < len(clauses):
            return ToolCall("policy_lookup", {"policy_id": policy_id, "clause_id": clauses[asked]})
        return answer(payload)

    return reply


def reviewed_by(
    start_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    claim: Path,
    reviewer: Scripted,
) -> Reviewed:
    """`claim` reviewed by the real crew: intake states no facts, and policy and fraud both
    review as `reviewer` does."""
    claim_id = json.loads(claim.read_text(encoding="utf-8"))["claim_id"]
    script = CrewScript().set(claim_id, "intake", answer(NO_FACTS))
    for agent in ("policy", "fraud"):
        script.set(claim_id, agent, reviewer)
    return review_claim(start_server, monkeypatch, library, claim, script)


def changed(folder: Path, claim: Path, attachments: tuple[str, ...] = (), **fields: Any) -> Path:
    """A copy of a sample claim (and the attachments it keeps) with `fields` changed."""
    path = sample_copy(folder, claim, *attachments)
    data = {**json.loads(path.read_text(encoding="utf-8")), **fields}
    data["attachments"] = list(attachments)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def checks(resolution: Resolution, cited: str) -> list[ClauseCheck]:
    """Every side's re-read of the clause cited as `cited`."""
    return [c for side in resolution.sides.values() for c in side.clauses if c.cited == cited]


def lookups(server: OpenAIServer, clause_id: str) -> list[str]:
    """What policy_lookup answered, each time, when asked for `clause_id`."""
    return [
        result
        for exchange in server.exchanges
        for result in exchange.request.tool_results
        if f"'{clause_id}'" in result or f"clause_id: {clause_id}\n" in result
    ]


def _washer_quoting_the_form(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    claim: Path,
) -> Reviewed:
    """Both reviewers look 4.2(b) up (and 7.2, the flood exclusion the claim's words "running",
    "water" and "off" fit), then quote 4.2(b) as the form prints it."""
    covered = claim_answer("covered", "4.2(b)", FORM_WATER)
    reviewer = looks_up(["4.2(b)", "7.2"], covered)
    return reviewed_by(openai_server, monkeypatch, library, claim, reviewer)


def test_a_quote_of_the_forms_replaced_water_clause_is_not_verified(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    claim = changed(tmp_path / "inbox", WASHER_CLAIM)
    reviewed = _washer_quoting_the_form(openai_server, monkeypatch, sample_library, claim)
    # The tool showed them HM-E-07's words; they quoted the form's all the same.
    shown = lookups(reviewed.server, "4.2(b)")
    assert shown and all(" ".join(AMENDED_WATER.split()) in " ".join(s.split()) for s in shown)

    resolution = reviewed.resolution
    water = checks(resolution, "4.2(b)")
    assert len(water) == 2
    for check in water:
        assert check.status == "superseded", check
        assert check.amended_by is not None and "HM-E-07" in check.amended_by
        assert check.original is not None and FORM_WATER in " ".join(check.original.split())
    for side in resolution.sides.values():
        assert not side.holds and "superseded_wording" in side.reason_codes, side
    # Neither side's evidence survives the re-read, so nothing is decided on the form's words:
    # the claim is left for a person.
    assert (resolution.outcome, resolution.answer) == ("ESCALATED", None)


def test_the_same_quote_decides_a_claim_on_the_form_alone(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """The endorsement is what stops it: without a policy number the claim is on the form, whose
    4.2(b) the same quote verifies."""
    claim = changed(tmp_path / "inbox", WASHER_CLAIM, policy_number=None)
    resolution = _washer_quoting_the_form(
        openai_server, monkeypatch, sample_library, claim
    ).resolution
    water = checks(resolution, "4.2(b)")
    assert len(water) == 2
    assert all(c.status == "verified" and c.amended_by is None for c in water)
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered"), resolution.reason


def test_the_washing_machine_claim_is_left_for_a_person_on_the_amended_clause(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """C-1053 as the sample inbox scripts it: both quote 4.2(b) as amended, which no longer
    covers a 14-year-old machine. The quote verifies, but 4.2(b) is a grant, and a grant cannot
    carry not_covered (kind_mismatch): a narrowed grant is no exclusion, so a person decides."""
    claim = sample_copy(tmp_path / "inbox", WASHER_CLAIM, WASHER_NOTE)
    excluded = claim_answer("not_covered", "4.2(b)", AMENDED_WATER)
    reviewer = looks_up(["4.2(b)"], excluded)
    resolution = reviewed_by(openai_server, monkeypatch, sample_library, claim, reviewer).resolution
    water = checks(resolution, "4.2(b)")
    assert len(water) == 2
    for check in water:
        assert (check.status, check.kind, check.supports_answer) == ("verified", "grant", False)
        assert check.amended_by == "as amended by endorsement HM-E-07 (page 1)"
    for side in resolution.sides.values():
        assert side.reason_codes == ["kind_mismatch"], side
    assert (resolution.outcome, resolution.answer) == ("ESCALATED", None)


def test_a_hot_tub_claim_before_the_exclusion_took_effect_is_decided_without_it(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    # C-1054 as if the tub had emptied in May 2025, before HM-E-09's 7.12 (2025-07-01).
    claim = changed(
        tmp_path / "inbox",
        HOT_TUB_CLAIM,
        date_of_loss="2025-05-20",
        date_reported="2025-05-21",
        description=json.loads(HOT_TUB_CLAIM.read_text())["description"].replace(
            "9 August 2025", "20 May 2025"
        ),
    )
    covered = {**claim_answer("covered", "4.2(b)", EITHER_WATER), "confidence": 0.9}
    reviewer = looks_up(["7.12", "7.1", "4.2(b)"], covered)
    reviewed = reviewed_by(openai_server, monkeypatch, sample_library, claim, reviewer)
    missed = lookups(reviewed.server, "7.12")
    assert missed and all(m.startswith("No clause '7.12'") for m in missed), missed

    resolution = reviewed.resolution
    cited = [c for side in resolution.sides.values() for c in side.clauses]
    assert cited and all(c.clause_id != "7.12" for c in cited)
    assert not any(c.amended_by and "HM-E-09" in c.amended_by for c in cited)
    # 4.2(b) is HM-E-07's from the policy's first day: the words both wordings share verify.
    water = checks(resolution, "4.2(b)")
    assert len(water) == 2
    for check in water:
        assert check.status == "verified" and check.amended_by is not None
        assert "HM-E-07" in check.amended_by
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered")


def test_the_hot_tub_claim_is_denied_on_the_exclusion_the_endorsement_added(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    excluded = claim_answer("not_covered", "7.12", HOT_TUB_EXCLUSION)
    claim = sample_copy(tmp_path / "inbox", HOT_TUB_CLAIM)
    reviewed = reviewed_by(
        openai_server, monkeypatch, sample_library, claim, looks_up(["7.12"], excluded)
    )
    resolution = reviewed.resolution
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "not_covered")
    hot_tubs = checks(resolution, "7.12")
    assert len(hot_tubs) == 2
    for check in hot_tubs:
        assert (check.status, check.kind, check.supports_answer) == ("verified", "exclusion", True)
        assert check.amended_by is not None and "HM-E-09" in check.amended_by
        assert check.original is None  # the form has no 7.12


@pytest.mark.usefixtures("engine")  # the decision and its letter on SQLite and PostgreSQL
def test_the_letter_quotes_the_water_clause_as_the_endorsement_replaced_it(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    # C-1053 had the washing machine been six years old: covered under 4.2(b) as amended.
    description = json.loads(WASHER_CLAIM.read_text())["description"]
    claim = changed(
        tmp_path / "inbox",
        WASHER_CLAIM,
        description=description.replace("about 14 years old", "six years old").replace(
            " The plumber's note is attached.", ""
        ),
    )
    # The claim's words ("running", "water", "off") fit the flood exclusion: both read it too.
    covered = claim_answer("covered", "4.2(b)", AMENDED_WATER)
    reviewer = looks_up(["4.2(b)", "7.2"], covered)
    reviewed = reviewed_by(openai_server, monkeypatch, sample_library, claim, reviewer)
    resolution = reviewed.resolution
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered"), resolution.reason

    out = tmp_path / "C-1053.pdf"
    result = CliRunner().invoke(main, ["letter", "C-1053", "--format", "pdf", "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    text = pdf_text(out.read_bytes())
    assert "Your claim is covered." in text
    assert "Clause 4.2(b) as amended by endorsement HM-E-07 (page 1)" in text
    assert AMENDED_WATER in text
    # The form's replaced words are not the policyholder's contract: the letter never quotes them.
    assert FORM_WATER not in text
    [issued] = reviewed.store.letters_issued("C-1053")
    assert issued.format == "pdf"


def _ride_share(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    claim: Path,
) -> Resolution:
    """The claim reviewed by two reviewers who look the ride-sharing exclusion up and cite it."""
    excluded = claim_answer("not_covered", RIDE_SHARE_CLAUSE, RIDE_SHARE_EXCLUSION)
    reviewer = looks_up([RIDE_SHARE_CLAUSE], excluded, AUTO)
    return reviewed_by(openai_server, monkeypatch, library, claim, reviewer).resolution


def test_the_ride_share_collision_is_denied_on_the_mid_term_exclusion(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    claim = sample_copy(tmp_path / "inbox", RIDE_SHARE_CLAIM, RIDE_SHARE_ESTIMATE)
    # C-2005 names no schedule file: its issued policy's declarations are the schedule.
    declarations = schedule_for(sample_library, AUTO, load_claim(claim).claim)
    assert (declarations.name, declarations.problem) == ("lindqvist-declarations.yaml", None)
    resolution = _ride_share(openai_server, monkeypatch, sample_library, claim)
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "not_covered")
    ride_share = checks(resolution, RIDE_SHARE_CLAUSE)
    assert len(ride_share) == 2
    for check in ride_share:
        assert (check.status, check.kind) == ("verified", "exclusion")
        assert check.amended_by is not None and "MA-E-12" in check.amended_by


def test_the_same_collision_before_the_endorsement_is_not_denied_on_it(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    # The same facts in August 2025, the policy in force but MA-E-12 not yet.
    claim = changed(
        tmp_path / "inbox",
        RIDE_SHARE_CLAIM,
        (RIDE_SHARE_ESTIMATE,),
        date_of_loss="2025-08-17",
        date_reported="2025-08-18",
    )
    resolution = _ride_share(openai_server, monkeypatch, sample_library, claim)
    ride_share = checks(resolution, RIDE_SHARE_CLAUSE)
    assert len(ride_share) == 2
    assert all(c.status == "clause_not_found" and c.clause_id is None for c in ride_share)
    assert resolution.answer != "not_covered"
    assert resolution.outcome == "ESCALATED"

"""Level 1: a conflict over open facts asks intake once, and only a quote the claim bears out
changes anything. C-1048 states when its damage started only in the plumber's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.config_check import check_config
from claims_crew.errors import ConfigError
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.config import ResolutionConfig, load_config, parse_config
from claims_crew.resolver.targeted import facts_to_ask, question_for
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.crew import (
    FOUND_BY_TENANT,
    FRAUD_EXCLUDED,
    INTAKE_LEAK,
    INTAKE_WATER,
    KNOWN_START,
    LEAK_CLAIM,
    LEAK_REPORT,
    LEAK_STARTED,
    PLUMBER_VISITED,
    POLICY_COVERED,
    STITCHED,
    Script,
    settings,
    start_date_answer,
    targeted_config,
    water_claim_adding,
    water_claim_saying_when,
)
from tests.support.paths import ROOT

REPORT = LEAK_REPORT
STARTED = LEAK_STARTED
RULING = {
    "choice": "fraud",
    "reason": "Damage that grew over five weeks is repeated leakage: 7.1 excludes it.",
    "evidence": ["7.1"],
}


def start_answer(value: str | None, quote: str = STARTED) -> str:
    return final(start_date_answer(value, quote))


def leak_script(*targeted: str, adjudicator: tuple[str, ...] = ()) -> Script:
    return Script(
        intake=[final(INTAKE_LEAK), *targeted],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=list(adjudicator),
    )


def config_dir(tmp_path: Path, enabled: bool) -> Path:
    return targeted_config(tmp_path, enabled)


def test_the_attachment_only_start_date_is_found_by_the_targeted_question(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = leak_script(start_answer("2025-10-06"), adjudicator=(final(RULING),))
    record = review_claim(
        load_claim(LEAK_CLAIM),
        settings(sample_library, script, tmp_path, config_dir(tmp_path, True)),
    )
    resolution = record.resolution
    assert resolution is not None, record.error
    # The start date settles the facts; the two readings of the clauses go to the adjudicator.
    assert (resolution.outcome, resolution.winner, resolution.answer) == (
        "ADJUDICATED",
        "fraud",
        "not_covered",
    )
    targeted = resolution.targeted
    assert targeted is not None and targeted.verified and targeted.settled
    assert targeted.facts == ["damage_start_date"]
    assert (targeted.before.outcome, targeted.before.rule) == ("ESCALATED", "conflict")
    [answer] = targeted.answers
    assert (answer.status, answer.value, answer.where) == ("verified", "2025-10-06", REPORT)
    started = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert (started.status, started.quote) == ("verified", STARTED)
    # The question named exactly the open fact, and intake was asked it once, on its own task.
    intake_calls = script("intake").calls
    assert len(intake_calls) == 2
    asked = json.dumps(intake_calls[1])
    assert "When did the damage start?" in asked and "damage_start_date" in asked
    assert "What caused the loss?" not in asked
    assert json.loads(record.raw["targeted_question_task"])["answers"][0]["value"] == "2025-10-06"
    assert record.model_calls["targeted_question_task"] == 1
    assert record.tokens_by_task["targeted_question_task"].calls == 1
    assert record.model_calls["intake_task"] == 1
    assert list(record.stages) == ["crew", "resolver", "targeted_evidence", "adjudicator"]
    # The whole of it survives the store.
    store = settings(sample_library, script, tmp_path).store
    store.record(record, None, load_claim(LEAK_CLAIM))
    kept = store.claim_record("C-1048")
    assert kept is not None and kept.resolution is not None
    assert kept.resolution.targeted == targeted
    assert kept.raw["targeted_question_task"] == record.raw["targeted_question_task"]


def test_the_shipped_config_asks_the_question(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    assert load_config(ROOT / "config").targeted_evidence.enabled
    script = leak_script(start_answer("2025-10-06"), adjudicator=(final(RULING),))
    record = review_claim(load_claim(LEAK_CLAIM), settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert resolution.targeted is not None and resolution.targeted.settled
    assert (resolution.outcome, resolution.answer) == ("ADJUDICATED", "not_covered")


def test_a_made_up_quote_is_refused_and_the_claim_escalates_with_the_question(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    made_up = "the leak began on 10 November 2025"
    script = leak_script(start_answer("2025-11-10", quote=made_up), adjudicator=(final(RULING),))
    record = review_claim(
        load_claim(LEAK_CLAIM),
        settings(sample_library, script, tmp_path, config_dir(tmp_path, True)),
    )
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "conflict")
    assert "fact_unverified" in resolution.reason_codes
    assert resolution.missing_facts == ["damage_start_date"]
    assert "When did the damage start?" in (resolution.question or "")
    targeted = resolution.targeted
    assert targeted is not None and not targeted.verified and not targeted.settled
    [answer] = targeted.answers
    assert answer.status == "unverified" and answer.problem == f"the quote is not in the {REPORT}"
    assert made_up in targeted.raw
    assert "When did the damage start?" in targeted.question
    assert script("adjudicator").calls == []
    started = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert started.status == "unknown"  # the made-up date never became a fact
    # A person sees the question intake was asked and why its answer was refused.
    Store().record(record, None, load_claim(LEAK_CLAIM))
    detail = json.loads(CliRunner().invoke(main, ["review", "show", "C-1048", "--json"]).output)
    assert detail["targeted"]["verified"] is False
    assert detail["targeted"]["before"] == {"outcome": "ESCALATED", "rule": "conflict"}
    shown = CliRunner().invoke(main, ["review", "show", "C-1048"], env={"COLUMNS": "300"})
    assert "Asked intake: When did the damage start?" in shown.output
    assert f"damage_start_date unverified (the quote is not in the {REPORT})" in shown.output


def test_a_quote_from_a_real_sentence_that_states_another_date_is_refused(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    # The words are in the report, but they do not say 2025-10-01.
    script = leak_script(start_answer("2025-10-01"))
    record = review_claim(
        load_claim(LEAK_CLAIM),
        settings(sample_library, script, tmp_path, config_dir(tmp_path, True)),
    )
    assert record.resolution is not None and record.resolution.targeted is not None
    [answer] = record.resolution.targeted.answers
    assert answer.problem == "the quote does not state 2025-10-01"
    assert record.resolution.outcome == "ESCALATED"


@pytest.mark.parametrize(
    ("quote", "problem"),
    [
        (STITCHED, "the quote joins more than one sentence of the description"),
        (
            PLUMBER_VISITED,
            "the quote does not speak of damage_start_date: it has none of the words started,",
        ),
    ],
    ids=["stitched", "another event"],
)
def test_a_date_quoted_from_another_sentence_or_event_does_not_settle_the_start(
    quote: str, problem: str, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """The claim never says when the damage started, only when the plumber came. Taken as the
    start, that date would send the claim to the adjudicator, who would find it covered."""
    ruling = {
        "choice": "policy",
        "reason": "A joint that failed the day the plumber came is a sudden discharge.",
        "evidence": ["4.2(b)"],
    }
    script = Script(
        intake=[final(INTAKE_WATER), final(start_date_answer("2025-11-03", quote, "description"))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=[final(ruling)],
    )
    claim = load_claim(water_claim_adding(tmp_path / "inbox", FOUND_BY_TENANT))
    assert "2025" not in claim.claim.description.replace(FOUND_BY_TENANT, "")
    record = review_claim(claim, settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "conflict")
    assert "fact_unverified" in resolution.reason_codes
    assert resolution.missing_facts == ["damage_start_date"]
    targeted = resolution.targeted
    assert targeted is not None and not targeted.verified and not targeted.settled
    [answer] = targeted.answers
    assert (answer.status, answer.value, answer.quote) == ("unverified", "2025-11-03", quote)
    assert answer.problem is not None and answer.problem.startswith(problem)
    started = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert started.status == "unknown"
    assert script("adjudicator").calls == []


def test_intake_answering_null_leaves_the_claim_escalated(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = leak_script(start_answer(None))
    record = review_claim(
        load_claim(LEAK_CLAIM),
        settings(sample_library, script, tmp_path, config_dir(tmp_path, True)),
    )
    resolution = record.resolution
    assert resolution is not None and resolution.targeted is not None
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "conflict")
    assert [a.status for a in resolution.targeted.answers] == ["unknown"]
    assert "fact_unverified" not in resolution.reason_codes


def test_an_unreadable_answer_is_kept_and_the_claim_escalates(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = leak_script("The damage started in October, I think.")
    record = review_claim(
        load_claim(LEAK_CLAIM),
        settings(sample_library, script, tmp_path, config_dir(tmp_path, True)),
    )
    resolution = record.resolution
    assert resolution is not None and resolution.targeted is not None
    assert resolution.outcome == "ESCALATED"
    assert resolution.targeted.parse_error and "started in October" in resolution.targeted.raw


def test_switched_off_no_question_is_asked(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    script = leak_script(start_answer("2025-10-06"), adjudicator=(final(RULING),))
    record = review_claim(
        load_claim(LEAK_CLAIM),
        settings(sample_library, script, tmp_path, config_dir(tmp_path, False)),
    )
    resolution = record.resolution
    assert resolution is not None
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "conflict")
    assert resolution.targeted is None
    assert len(script("intake").calls) == 1
    assert "targeted_question_task" not in record.raw
    assert "targeted_question_task" not in record.model_calls


def test_at_most_one_question_per_claim() -> None:
    on = ResolutionConfig.model_validate({"targeted_evidence": {"enabled": True}})
    conflict = Resolution(
        outcome="ESCALATED",
        rule="conflict",
        reason="facts open",
        missing_facts=["damage_start_date", "cause"],
    )
    assert facts_to_ask(conflict, on) == ["damage_start_date", "cause"]
    off = ResolutionConfig.model_validate({"targeted_evidence": {"enabled": False}})
    assert facts_to_ask(conflict, off) == []
    # Left out of the file: on.
    assert facts_to_ask(conflict, ResolutionConfig()) == ["damage_start_date", "cause"]
    question = question_for(["damage_start_date"])
    from claims_crew.records.resolution import TargetedEvidence

    asked = conflict.model_copy(
        update={
            "targeted": TargetedEvidence(
                question=question,
                facts=["damage_start_date"],
                raw="{}",
                verified=False,
                settled=False,
                before=conflict,
            )
        }
    )
    assert facts_to_ask(asked, on) == []
    dispute = conflict.model_copy(update={"rule": "dispute", "outcome": "ADJUDICATION_REQUIRED"})
    assert facts_to_ask(dispute, on) == []


def test_a_bad_switch_stops_the_run_and_config_check_names_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="targeted_evidence"):
        parse_config({"targeted_evidence": {"enabled": "sometimes"}})
    folder = config_dir(tmp_path, True)
    rules = (folder / "resolution.yaml").read_text(encoding="utf-8")
    (folder / "resolution.yaml").write_text(
        rules.replace(
            "targeted_evidence:\n  enabled: true\n", "targeted_evidence:\n  enable: true\n"
        )
    )
    problems = check_config(folder)
    found = [p for p in problems if p.file == "resolution.yaml" and "targeted_evidence" in p.key]
    assert found and found[0].line is not None


def test_the_report_counts_the_evidence_resolution_rate(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """Three conflicts asked intake: one settled (C-1048), two not (a made-up quote, a null);
    one claim never asked (its facts were known): 1 of 3 settled, 3 of 4 claims asked."""
    config = config_dir(tmp_path, True)
    store = Store()
    leak = json.loads(LEAK_CLAIM.read_text(encoding="utf-8"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / LEAK_REPORT).write_text(
        (LEAK_CLAIM.parent / LEAK_REPORT).read_text(encoding="utf-8"), encoding="utf-8"
    )
    runs = {
        "L-1": leak_script(start_answer("2025-10-06"), adjudicator=(final(RULING),)),
        "L-2": leak_script(start_answer("2025-11-10", quote="the leak began on 10 November")),
        "L-3": leak_script(start_answer(None)),
    }
    for claim_id, script in runs.items():
        path = inbox / f"{claim_id}.json"
        path.write_text(json.dumps({**leak, "claim_id": claim_id}), encoding="utf-8")
        loaded = load_claim(path)
        run = build_context(library=sample_library, llm_for=script, store=store, config_dir=config)
        store.record(review_claim(loaded, run), None, loaded)
    known = Script(
        intake=[final(KNOWN_START)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=[final(RULING)],
    )
    loaded = load_claim(water_claim_saying_when(inbox, "W-1"))
    run = build_context(library=sample_library, llm_for=known, store=store, config_dir=config)
    store.record(review_claim(loaded, run), None, loaded)

    shown = CliRunner().invoke(main, ["report", "--json"])
    assert shown.exit_code == 0, shown.output
    overall = json.loads(shown.output)["overall"]
    assert overall["evidence_requests"] == {"figure": 0.75, "count": 3, "denominator": 4}
    assert overall["evidence_resolution"] == {
        "figure": round(1 / 3, 6),
        "count": 1,
        "denominator": 3,
    }
    page = tmp_path / "report.html"
    assert CliRunner().invoke(main, ["report", "--html", str(page)]).exit_code == 0
    html = page.read_text(encoding="utf-8")
    row = html[html.index("evidence resolution rate") :]
    assert "33.3%" in row[:200] and ">1<" in row[:200] and ">3<" in row[:200]
    text = CliRunner().invoke(main, ["report"], env={"COLUMNS": "200"}).output
    assert "evidence resolution rate" in text

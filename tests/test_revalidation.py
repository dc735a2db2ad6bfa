"""Expiry and revalidation, through the scripted crew and a real store (SQLite and PostgreSQL).

Every decision records when it expires (resolution.yaml `expiry`) and the versions it stood on;
`review stale` lists those that expired or whose policy PDF, corrections, config or claim file
changed since; `revalidate` runs them again and links its entry to the one in force.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from sqlalchemy import Table, inspect, select, update

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver.expiry import Expiry
from claims_crew.run.batch import SETTLED, run_batch
from claims_crew.run.context import RunContext, build_context
from claims_crew.run.ingest import ingest
from claims_crew.run.revalidate import revalidate
from claims_crew.run.stale import Project, find_stale
from claims_crew.store import Store
from claims_crew.store.tables import audit_log, superseded, validations
from claims_crew.vocabulary import parse_stamp, utc_now
from tests.support.crew import KNOWN_START, POLICY_COVERED, STARTED, Script, water_script
from tests.support.paths import ROOT, SAMPLE_POLICIES
from tests.support.store import back_to, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

SURE = {**POLICY_COVERED, "confidence": 0.9}
FRAUD_AGREES = {**SURE, "rationale": "A leak found the day after it began is sudden: 4.2(b)."}


def agreeing_script() -> Script:
    """Both sides look 4.2(b) up and say covered, sure enough to agree: ACCEPTED covered."""
    return Script(
        intake=[final(KNOWN_START)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(SURE)],
        fraud=[lookup("HM-HOME-001", "4.2(b)"), final(FRAUD_AGREES)],
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm_index: None) -> Path:
    """A copy of the sample policies and of config/, which the commands read; the home holds
    their index already (warm_index: an index is named by its PDF's bytes, which the copy
    keeps), so a command reads only a PDF a test has changed."""
    policies = tmp_path / "policies"
    shutil.copytree(SAMPLE_POLICIES, policies)
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(policies))
    shutil.copytree(ROOT / "config", tmp_path / "config")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(tmp_path / "config"))
    return tmp_path


def settings(project: Path, script: Script, session_cache: Path) -> RunContext:
    """RunContext as `run` builds them, over the project's copies and the default store."""
    return build_context(
        library=PolicyLibrary(root=project / "policies", cache_dir=session_cache),
        llm_for=script,
        config_dir=project / "config",
        store=Store(),
    )


def decide(project: Path, path: Path, script: Script, session_cache: Path) -> None:
    (item,) = run_batch([path], settings(project, script, session_cache))
    assert item.record is not None and item.record.status == "reviewed", item


def stale_json() -> dict[str, Any]:
    result = CliRunner().invoke(main, ["review", "stale", "--json"])
    assert result.exit_code == 0, result.output
    payload: dict[str, Any] = json.loads(result.output)
    return payload


def audit_ok() -> None:
    result = CliRunner().invoke(main, ["audit", "verify", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["ok"] is True


def entries(claim_id: str) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for e in Store().audit_entries(claim_id)]


@pytest.mark.parametrize(
    ("outcome", "risk_class", "days"),
    [
        ("ACCEPTED", None, 365),  # the outcome's rule
        ("ACCEPTED", "high", 30),  # both apply: the shorter wins
        ("ESCALATED", "high", 30),  # the risk class's rule alone
        ("PREFERRED", "low", 90),  # neither applies: the default
    ],
)
def test_the_shortest_expiry_rule_that_applies_wins(
    outcome: str, risk_class: str | None, days: int
) -> None:
    expiry = Expiry.model_validate(
        {"default": "90d", "by_outcome": {"ACCEPTED": "365d"}, "by_risk_class": {"high": "30d"}}
    )
    assert expiry.valid_for(outcome, risk_class) == timedelta(days=days)
    assert Expiry().valid_for(outcome, risk_class) is None


def set_rules(project: Path, section: str, **values: Any) -> None:
    """Set keys of one section of the project's resolution.yaml."""
    path = project / "config" / "resolution.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data[section].update(values)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")


def test_each_decision_expires_by_the_rule_and_never_by_default(
    project: Path, session_cache: Path
) -> None:
    inbox = project / "inbox"
    plain = water_loaded(inbox, "C-1042").path
    risky = water_loaded(inbox, "C-1050", risk_class="high").path
    unset = water_loaded(inbox, "C-1051").path
    decide(project, unset, water_script(), session_cache)  # the shipped config: no expiry
    set_rules(project, "expiry", by_outcome={"ESCALATED": "30d"}, by_risk_class={"high": "7d"})
    decide(project, plain, water_script(), session_cache)
    decide(project, risky, water_script(), session_cache)

    standing = {s.claim_id: s for s in Store().standings()}
    assert {s.outcome for s in standing.values()} == {"ESCALATED"}
    assert standing["C-1051"].expires_at is None
    for claim_id, days in (("C-1042", 30), ("C-1050", 7)):
        s = standing[claim_id]
        assert s.expires_at is not None
        assert parse_stamp(s.expires_at) - parse_stamp(s.validated_at) == timedelta(days=days)
        assert entries(claim_id)[-1]["expires_at"] == s.expires_at
    assert entries("C-1051")[-1]["expires_at"] is None
    # Each decision names the config files it stood on, the same hash the run computed.
    hashes = {claim_id: entries(claim_id)[-1]["config_files_sha256"] for claim_id in standing}
    assert hashes["C-1042"] == hashes["C-1050"] != hashes["C-1051"] is not None
    audit_ok()


def test_an_expired_decision_is_stale(project: Path, session_cache: Path) -> None:
    set_rules(project, "expiry", default="1h")
    path = water_loaded(project / "inbox", "C-1042").path
    decide(project, path, water_script(), session_cache)
    assert stale_json()["stale"] == []
    now = settings(project, Script(), session_cache)
    current = Project(now.library, now.config_sha256)
    assert find_stale(now.store, current, utc_now() + timedelta(minutes=59)) == []
    found = find_stale(now.store, current, utc_now() + timedelta(hours=1, seconds=1))
    assert [(s.claim_id, s.reasons) for s in found] == [("C-1042", ["expired"])]
    assert found[0].why["expired"].startswith("expired at ")


def test_a_replaced_policy_pdf_is_stale_and_revalidate_links_a_replay(
    project: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = water_loaded(project / "inbox", "C-1042").path
    decide(project, path, water_script(), session_cache)
    before = entries("C-1042")
    assert stale_json() == {"stale": [], "total": 0}

    # Another PDF under the home policy's name: the decision stood on a text that is gone.
    pdf = project / "policies" / "harbour_home.pdf"
    pdf.write_bytes((SAMPLE_POLICIES / "meridian_auto.pdf").read_bytes())
    listed = stale_json()["stale"]
    assert [(s["claim_id"], s["reasons"]) for s in listed] == [("C-1042", ["policy"])]
    assert "HM-HOME-001" in listed[0]["why"]["policy"]

    script = water_script()
    monkeypatch.setattr("claims_crew.llms.select.default_llm_factory", lambda *_a, **_k: script)
    result = CliRunner().invoke(main, ["revalidate", "--json"])
    assert result.exit_code == 0, result.output
    (done,) = json.loads(result.output)["revalidated"]
    assert done["claim_id"] == "C-1042" and done["changed"] == ["policy"]
    # 4.2(b) and 7.1 are not in the motor policy: nobody's evidence holds, escalated again.
    assert done["before"] == done["after"] == {"outcome": "ESCALATED", "answer": None}
    assert done["verdict"] == "replay" and not done["back_to_queue"] and done["person"] is None

    after = entries("C-1042")
    assert after[:-1] == before
    entry = after[-1]
    head = Store().audit_entries("C-1042")[-2]
    assert entry["kind"] == "revalidated" and entry["revalidation"] == "replay"
    assert entry["revalidates"] == before[-1]["seq"] == head.seq
    with Store().read() as conn:
        prev_hash = conn.execute(
            select(audit_log.c.hash).where(audit_log.c.seq == entry["revalidates"])
        ).scalar_one()
    assert entry["revalidates_hash"] == prev_hash
    assert entry["changed"] == ["policy"] and "replays" in entry["reason"]
    assert entry["policy_sha256"] != before[-1]["policy_sha256"]
    # The decision stands; it now stands on the new PDF, so it is no longer stale.
    assert Store().open_count() == 1
    assert stale_json()["stale"] == []
    audit_ok()


def test_a_config_change_is_stale_and_revalidation_makes_a_new_decision(
    project: Path, session_cache: Path
) -> None:
    path = water_loaded(project / "inbox", "C-1042", description=f"Water. {STARTED}").path
    decide(project, path, agreeing_script(), session_cache)
    (decision,) = Store().decisions()
    assert (decision.outcome, decision.answer) == ("ACCEPTED", "covered")

    set_rules(project, "accept", min_confidence=0.95)  # two agents at 0.9 agree too little
    listed = stale_json()["stale"]
    assert [(s["claim_id"], s["reasons"]) for s in listed] == [("C-1042", ["config"])]

    (done,) = revalidate(settings(project, agreeing_script(), session_cache), utc_now())
    assert done.verdict == "new" and done.changed == ["config"] and not done.reopened
    assert done.after is not None and done.after != ("ACCEPTED", "covered")
    (now,) = Store().decisions()
    assert (now.outcome, now.answer) == done.after
    entry = entries("C-1042")[-1]
    assert entry["revalidation"] == "new" and entry["changed"] == ["config"]
    assert entry["revalidates"] == entries("C-1042")[0]["seq"]
    assert entry["kind"] in ("escalated", "auto") and entry["outcome"] == done.after[0]
    with Store().read() as conn:
        kept = conn.execute(select(superseded.c.what, superseded.c.audit_seq)).all()
    assert kept == [("decision", entries("C-1042")[0]["seq"])]
    audit_ok()
    assert stale_json()["stale"] == []
    # `run` never sends a decided claim to a model again, revalidated or not.
    assert [i for i in ingest([path], Store()) if i.state not in SETTLED] == []


def test_a_human_decision_is_never_overwritten_the_claim_goes_back_to_the_queue(
    project: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = water_loaded(project / "inbox", "C-1042").path
    decide(project, path, water_script(), session_cache)
    store = Store()
    store.add_reviewer("ana")
    store.decide(
        "C-1042", "not_covered", "Seepage for weeks, by the stains.", "ana", rules=DeskRules()
    )
    human = entries("C-1042")[-1]
    assert human["kind"] == "human"

    # The claimant writes when the leak began: the claim file changed since the decision.
    data = json.loads(path.read_text(encoding="utf-8"))
    data["description"] += f" {STARTED}"
    path.write_text(json.dumps(data), encoding="utf-8")
    listed = stale_json()["stale"]
    assert [(s["claim_id"], s["reasons"]) for s in listed] == [("C-1042", ["claim_file"])]
    assert listed[0]["human_decision"] == "not_covered"
    assert listed[0]["decided_by"] == "human:ana"

    script = agreeing_script()
    monkeypatch.setattr("claims_crew.llms.select.default_llm_factory", lambda *_a, **_k: script)
    result = CliRunner().invoke(main, ["revalidate", "C-1042"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    # Before: what the person decided, not the rules' ESCALATED that sent it to them.
    [row] = [line for line in result.output.splitlines() if "C-1042" in line]
    cells = [cell.strip() for cell in row.strip("│ ").split("│")]
    assert cells[2:4] == ["not_covered (decided by ana)", "ACCEPTED covered"]
    assert "back to the review queue" in cells[4]
    # Back in the queue, saying what the person decided and what the rules now say.
    (open_one,) = store.open_escalations()
    assert open_one.claim_id == "C-1042" and open_one.audit_seq > human["seq"]
    assert open_one.question is not None and "ana decided not_covered" in open_one.question
    (decision,) = store.decisions()
    assert decision.outcome == "ESCALATED" and decision.review is None
    assert decision.resolution.would_have_been == "ACCEPTED"
    # The person's decision is kept: their entry in the chain, their review row in history.
    chain = entries("C-1042")
    assert human in chain and chain[-1]["revalidates"] == human["seq"]
    assert chain[-1]["revalidation"] == "new" and chain[-1]["changed"] == ["claim_file"]
    with store.read() as conn:
        kept = dict(
            conn.execute(
                select(superseded.c.what, superseded.c.row).where(superseded.c.what == "review")
            ).all()
        )
    assert json.loads(kept["review"])["decision"] == "not_covered"
    audit_ok()
    # A person decides again, on the new escalation; the chain still verifies.
    store.decide(
        "C-1042", "covered", "The leak began the day it was found.", "ana", rules=DeskRules()
    )
    assert [r.decision for r in store.reviews("C-1042")] == ["covered"]
    audit_ok()
    assert [i for i in ingest([path], Store()) if i.state not in SETTLED] == []


def test_the_migration_takes_earlier_versions_from_the_entries(
    project: Path, session_cache: Path
) -> None:
    """Decisions made before 0008 get their validations from the entries that recorded them."""
    path = water_loaded(project / "inbox", "C-1042").path
    decide(project, path, water_script(), session_cache)
    store = Store()
    back_to(store, "0007_attempt_usage_and_stages")
    with store.read() as conn:
        assert not inspect(conn).has_table("validations")
    (standing,) = Store().standings()
    first = entries("C-1042")[0]
    assert standing.policy_sha256 == first["policy_sha256"]
    assert standing.expires_at is None
    assert stale_json()["stale"] == []
    audit_ok()


def test_config_check_names_each_bad_expiry_rule(project: Path) -> None:
    path = project / "config" / "resolution.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("\nexpiry:")
    path.write_text(
        text[:start]
        + "\nexpiry:\n  default: 1 year\n  by_outcome: {ACCEPTD: 30d}\n"
        + "  by_risk_class: {hgh: 7d}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["config", "check", "--json"])
    assert result.exit_code == 2, result.output
    found = {
        (p["key"], p["code"], p["line"])
        for p in json.loads(result.output)["problems"]
        if p["key"].startswith("expiry")
    }
    line = text[:start].count("\n") + 2
    assert found == {
        ("expiry.default", "bad_duration", line + 1),
        ("expiry.by_outcome.ACCEPTD", "unknown_outcome", line + 2),
        ("expiry.by_risk_class.hgh", "unknown_risk_class", line + 3),
    }


def test_an_expiry_moved_under_the_chain_fails_audit_verify(
    project: Path, session_cache: Path
) -> None:
    set_rules(project, "expiry", default="1h")
    path = water_loaded(project / "inbox", "C-1042").path
    decide(project, path, water_script(), session_cache)
    audit_ok()
    with Store().write() as conn:
        conn.execute(update(validations).values(expires_at="2999-01-01T00:00:00.000000Z"))
    result = CliRunner().invoke(main, ["audit", "verify", "--json"])
    assert result.exit_code == 1, result.output
    problem = json.loads(result.output)["problem"]
    assert "validation of claim C-1042 says expires at '2999-01-01" in problem


def verify_problem() -> str:
    result = CliRunner().invoke(main, ["audit", "verify", "--json"])
    assert result.exit_code == 1, result.output
    problem: str = json.loads(result.output)["problem"]
    return problem


def test_rows_moved_out_of_force_or_edited_under_the_chain_fail_audit_verify(
    project: Path, session_cache: Path
) -> None:
    """A superseded row must match the entry it recorded and have been replaced by a new
    decision of its claim; a validations row must say what its entry says, even where it is no
    longer JSON."""
    path = water_loaded(project / "inbox", "C-1042", description=f"Water. {STARTED}").path
    decide(project, path, agreeing_script(), session_cache)
    set_rules(project, "accept", min_confidence=0.95)
    (done,) = revalidate(settings(project, agreeing_script(), session_cache), utc_now())
    assert done.verdict == "new"
    audit_ok()
    first, new = (e["seq"] for e in entries("C-1042"))
    store = Store()
    with store.read() as conn:
        kept = conn.execute(select(superseded)).mappings().one()
        models = conn.execute(select(validations.c.models)).scalar_one()
    assert (kept["what"], kept["audit_seq"], kept["superseded_by"]) == ("decision", first, new)

    def tampered(table: Table, values: dict[str, Any]) -> str:
        with store.write() as conn:
            conn.execute(update(table).values(**values))
        problem = verify_problem()
        with store.write() as conn:  # put back
            conn.execute(
                update(table).values(**({"models": models} if table is validations else dict(kept)))
            )
        audit_ok()
        return problem

    moved = tampered(superseded, {"superseded_by": first})
    assert moved == (
        f"the superseded decision of claim C-1042 was replaced by entry {first}, "
        "which is no new decision of it"
    )
    for row in ("not json", json.dumps({"audit_seq": new})):
        edited = tampered(superseded, {"row": row})
        assert (
            edited
            == f"the superseded decision of claim C-1042 does not match its audit entry {first}"
        )
    broken = tampered(validations, {"models": "not json"})
    assert broken.startswith(
        f"the validation of claim C-1042 says models 'not json', its audit entry {new} says {{"
    )


def test_a_decision_on_an_issued_policy_stands_on_its_wording_in_force(
    project: Path, session_cache: Path
) -> None:
    """Its policy hash is of the form with the endorsements in force on the date of loss: it
    stays current across runs, and only an endorsement in force that changes makes it stale."""
    path = water_loaded(
        project / "inbox", "C-1042", policy_number="HM-25-00417", date_of_loss="2025-03-10"
    ).path
    decide(project, path, water_script(), session_cache)
    assert stale_json() == {"stale": [], "total": 0}

    # HM-E-09 takes effect on 2025-07-01, after this loss: a new text of it changes nothing.
    endorsements = project / "policies" / "endorsements"
    hot_tubs = endorsements / "hm_e09_hot_tubs.pdf"
    water = endorsements / "hm_e07_escape_of_water.pdf"
    hot_tubs.write_bytes(water.read_bytes())
    assert stale_json() == {"stale": [], "total": 0}

    # HM-E-07 is in force from the policy's first day: another text under its name is.
    water.write_bytes((SAMPLE_POLICIES / "endorsements" / "hm_e09_hot_tubs.pdf").read_bytes())
    (listed,) = stale_json()["stale"]
    assert (listed["claim_id"], listed["reasons"]) == ("C-1042", ["policy"])
    assert listed["why"]["policy"].startswith("policy HM-25-00417: the wording in force is ")

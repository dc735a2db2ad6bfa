"""`claims-crew review | audit | reviewer`: the terminal queue, its JSON shapes and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rich.console import Console
from sqlalchemy import text

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.crew import INTAKE_WATER, WATER_SOURCES, water_script
from tests.support.paths import ROOT
from tests.support.reviewers import as_reviewer, decide
from tests.support.scripts import load_script
from tests.support.store import accepted_answers, record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def tokens() -> dict[str, str]:
    """Reviewer name → sign-in token, as the tests register them."""
    return {}


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary, tokens: dict[str, str]) -> Store:
    """The water claim escalated, a second claim accepted, and a reviewer named ana."""
    store = Store()
    water = water_loaded(
        tmp_path / "inbox",
        description="Water came through the kitchen ceiling [bold red]NOW[/]. "
        "A plumber found a leaking joint on the pipe under the bath.",
    )
    store.record(record_for(water, sample_library), None, water)
    theft = water_loaded(tmp_path / "inbox", "C-2000")
    store.record(record_for(theft, sample_library, **accepted_answers()), None, theft)
    tokens["ana"] = store.add_reviewer("ana")
    return store


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def as_json(result: Result) -> Any:
    return json.loads(result.stdout)


def test_list_json_has_the_documented_shape(store: Store) -> None:
    result = cli("review", "list", "--json")
    assert result.exit_code == 0, result.output
    [row] = as_json(result)["escalations"]
    assert set(row) == {"id", "claim_id", "amount", "reason_codes", "question", "opened_at"} | {
        "currency", "jurisdiction", "acknowledge_by", "decide_by", "days_left", "overdue", "due",
        "excluded_reviewers", "external_codes", "assigned", "assigned_to", "unassigned_why",
        "proposal", "standing",
    }  # fmt: skip
    assert row["external_codes"] == {"needs_more_evidence": "I01"}
    assert row["claim_id"] == "C-1042" and row["amount"] == "4200"
    assert row["reason_codes"] == ["needs_more_evidence"]
    assert row["question"] == "damage_start_date: When did the damage start?"


def test_list_shows_claim_amount_why_and_age(store: Store) -> None:
    result = cli("review", "list")
    assert result.exit_code == 0, result.output
    assert "C-1042" in result.output and "4200 GBP" in result.output
    assert "needs_more_evidence" in result.output and "C-2000" not in result.output
    assert "1 open escalation(s)" in result.output


def test_show_json_has_both_claims_with_their_reread_clauses(store: Store) -> None:
    result = cli("review", "show", "C-1042", "--json")
    assert result.exit_code == 0, result.output
    detail = as_json(result)
    policy, fraud = detail["sides"]["policy"], detail["sides"]["fraud"]
    assert (policy["answer"], fraud["answer"]) == ("covered", "not_covered")
    [covered] = policy["clauses"]
    assert covered["clause_id"] == "4.2(b)" and covered["status"] == "verified"
    assert covered["tool_sourced"] and "sudden and accidental" in covered["text"]
    [excluded] = fraud["clauses"]
    assert excluded["clause_id"] == "7.1" and not excluded["tool_sourced"]
    assert "seepage" in excluded["text"]
    assert {"name": "damage_start_date", "value": None} in policy["facts_relied_on"]
    assert detail["question"] == "damage_start_date: When did the damage start?"
    assert [s["rule"] for s in detail["trail"]][:2] == ["checks", "reread"]
    assert detail["claim"]["claimant"] == "Dana Whitfield"


def test_show_prints_both_sides_and_the_claim_text_as_written(store: Store) -> None:
    result = cli("review", "show", "C-1042")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "policy" in out and "fraud" in out and "4.2(b)" in out and "7.1" in out
    assert "[verified]" in out and "tool-sourced" in out and "from memory" in out
    assert "damage_start_date=UNKNOWN" in out
    assert "[bold red]NOW[/]" in out  # markup in a claim is shown, not obeyed
    assert "When did the damage start?" in out


def test_show_marks_each_fact_verified_unverified_or_unknown(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    guessed = {**INTAKE_WATER, "damage_start_date": "2025-11-03", "unknowns": []}
    guessed["sources"] = {
        **WATER_SOURCES,
        "cause": {"where": "description", "quote": "the joint had leaked for weeks"},
    }
    store.record(record_for(water, sample_library, intake=guessed), None, water)
    checks = {
        f["name"]: f for f in as_json(cli("review", "show", "C-1042", "--json"))["fact_checks"]
    }
    assert {n: f["status"] for n, f in checks.items()} == {
        "loss_type": "verified",
        "cause": "unverified",
        "date_of_loss": "verified",
        "damage_start_date": "unverified",
        "amount_claimed": "verified",
    }
    assert checks["loss_type"]["quote"] == "Water came through the kitchen ceiling"
    assert checks["loss_type"]["where"] == "description"
    assert checks["damage_start_date"]["value"] == "2025-11-03"
    out = " ".join(cli("review", "show", "C-1042").output.split())  # as wrapped to any width
    assert (
        "loss_type: water_damage verified “Water came through the kitchen ceiling” (description)"
        in out
    )
    assert "date_of_loss: 2025-11-03 verified claim file: date_of_loss" in out
    assert "damage_start_date: unverified intake said 2025-11-03; no source given" in out
    assert "the quote is not in the description: “the joint had leaked for weeks”" in out


def test_show_without_fact_checks_marks_stated_facts_unchecked(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    """A decision recorded before facts were checked: nothing it states counts as verified."""
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    record = record_for(water, sample_library)
    assert record.resolution is not None
    old = record.model_copy(
        update={"resolution": record.resolution.model_copy(update={"facts": []})}
    )
    store.record(old, None, water)
    checks = as_json(cli("review", "show", "C-1042", "--json"))["fact_checks"]
    assert {f["name"]: f["status"] for f in checks}["loss_type"] == "unverified"
    assert {f["name"]: f["status"] for f in checks}["damage_start_date"] == "unknown"


def test_decide_records_once_and_tells_the_second_who_decided(
    store: Store, tokens: dict[str, str]
) -> None:
    tokens["bo"] = store.add_reviewer("bo")
    first = decide(tokens["ana"], "C-1042", "covered", "dated", "--reviewer")
    assert first.exit_code == 2  # --reviewer needs a value
    ok = decide(
        tokens["ana"], "C-1042", "covered", "The plumber dates the leak.", "--reviewer", "ana",
        "--clause", "4.2(b)", "--json",
    )  # fmt: skip
    assert ok.exit_code == 0, ok.output
    review = as_json(ok)["review"]
    assert review["reviewer"] == "ana" and review["decision"] == "covered"
    assert review["audit_seq"] == 3
    late = decide(tokens["bo"], "C-1042", "not_covered", "seepage", "--clause", "7.1", "--json")
    assert late.exit_code == 4
    error = as_json(late)["error"]
    assert error["code"] == "already_decided" and error["decided_by"] == "ana"
    assert "already decided (covered) by ana" in late.stderr
    assert cli("review", "list", "--json").stdout.count("C-1042") == 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["C-1042", "--decision", "covered", "--reason", "  ", "--clause", "4.2(b)"], 2, "reason"),
        (["C-1042", "--decision", "covered", "--reason", "x", "--reviewer", "zed"], 2, "zed"),
        (["C-9999", "--decision", "covered", "--reason", "x", "--reviewer", "ana"], 3, "C-9999"),
        (["C-2000", "--decision", "covered", "--reason", "x", "--reviewer", "ana"], 3, "C-2000"),
        (["C-1042", "--decision", "approve", "--reason", "x", "--reviewer", "ana"], 2, "approve"),
    ],
)
def test_decide_refuses_what_cannot_be_recorded(
    store: Store, tokens: dict[str, str], args: list[str], code: int, message: str
) -> None:
    result = as_reviewer(tokens["ana"], "review", "decide", *args)
    assert result.exit_code == code
    assert message in result.output + result.stderr
    assert store.reviews() == []


def test_audit_verify_and_a_tampered_database(store: Store) -> None:
    result = cli("audit", "verify", "--json")
    assert result.exit_code == 0 and as_json(result) == {
        "ok": True,
        "entries": 2,
        "first_bad": None,
        "problem": None,
        "unsigned": 0,
    }
    with store.write() as conn:  # behind the store's back: its own calls never edit an entry
        edited = conn.execute(
            text("UPDATE audit_log SET body = replace(body, 'covered', 'COVERED') WHERE seq = :s"),
            {"s": 2},
        )
        assert edited.rowcount == 1
    broken = cli("audit", "verify", "--json")
    assert broken.exit_code == 1
    assert as_json(broken)["first_bad"] == 2 and not as_json(broken)["ok"]
    assert "BROKEN at entry 2" in cli("audit", "verify").stderr


def test_audit_export_writes_jsonl_that_verifies(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "audit.jsonl"
    result = cli("audit", "export", "--output", str(out), "--json")
    assert result.exit_code == 0 and as_json(result) == {"output": str(out), "entries": 2}
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["entry"]["claim_id"] for line in lines[1:]] == ["C-1042", "C-2000"]
    assert as_json(cli("audit", "verify", "--file", str(out), "--json"))["ok"]
    out.write_text("\n".join([lines[0], lines[2], lines[1]]) + "\n", encoding="utf-8")
    swapped = cli("audit", "verify", "--file", str(out), "--json")
    assert swapped.exit_code == 1 and as_json(swapped)["first_bad"] == 1
    stdout = cli("audit", "export", "--since", "2999-01-01")
    assert [json.loads(line)["audit_export"]["entries"] for line in stdout.output.split()] == [0]


def test_reviewer_add_prints_a_token_once(store: Store, tokens: dict[str, str]) -> None:
    result = as_reviewer(tokens["ana"], "reviewer", "add", "carla", "--json")
    assert result.exit_code == 0
    token = as_json(result)["token"]
    assert store.sign_in(token, "test") == "carla"
    again = as_reviewer(tokens["ana"], "reviewer", "add", "carla")
    assert again.exit_code == 2 and "already exists" in again.stderr


def test_reviewer_add_is_the_old_name_of_reviewers_add_and_says_so(
    store: Store, tokens: dict[str, str]
) -> None:
    """`reviewer add` still registers a reviewer with the defaults, its --json as before, with
    one line on stderr naming `reviewers add`; `--help` and the command reference name only
    `reviewers`."""
    old = as_reviewer(tokens["ana"], "reviewer", "add", "carla", "--json")
    assert old.exit_code == 0, old.output
    assert old.stderr.splitlines() == [
        "note: `claims-crew reviewer add` is now `claims-crew reviewers add`; "
        "`reviewer add` goes in the next release"
    ]
    assert set(as_json(old)) == {"reviewer", "token"} and as_json(old)["reviewer"] == "carla"
    new = as_reviewer(tokens["ana"], "reviewers", "add", "dana", "--json")
    assert new.exit_code == 0 and new.stderr == ""
    by_name = {r.name: r.settings for r in store.reviewer_list()}
    assert by_name["carla"] == by_name["dana"]  # the same defaults either way
    said = as_reviewer(tokens["ana"], "reviewer", "add", "eve")
    assert said.exit_code == 0 and said.stdout.startswith("Reviewer eve added. Sign-in token")

    listed = [
        line.split()[0]
        for line in cli("--help").stdout.split("Commands:")[1].splitlines()
        if line.strip()
    ]
    assert "reviewers" in listed and "reviewer" not in listed
    reference = load_script(ROOT / "scripts" / "command_reference.py").reference(main)
    assert "## claims-crew reviewers add\n" in reference
    assert "claims-crew reviewer " not in reference and "reviewer add" not in reference


def test_a_run_says_how_many_claims_wait_and_how_to_open_them(tmp_path: Path) -> None:
    inbox = tmp_path / "run-inbox"
    water_loaded(inbox, "C-1042")
    console = Console(record=True, width=200)
    assert review_inbox(inbox, 1, console, llm_for=water_script()) == 0
    out = console.export_text()
    assert "1 claim(s) escalated in this run; 1 open escalation(s) in all." in out
    assert "claims-crew review list" in out and "claims-crew serve" in out
    listed = as_json(cli("review", "list", "--json"))["escalations"]
    assert [e["claim_id"] for e in listed] == ["C-1042"]

    water_loaded(inbox, "C-1042", amount=9999)  # edited after its decision
    again = Console(record=True, width=200)
    assert review_inbox(inbox, 1, again, llm_for=water_script()) == 0
    out = again.export_text()
    assert "0 to review" in out and "changed after their decision" in out
    changed = as_json(cli("review", "list", "--json"))["changed_after_decision"]
    assert [c["claim_id"] for c in changed] == ["C-1042"]

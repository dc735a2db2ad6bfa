"""Shadow runs and `claims-crew compare`, through the scripted crew and real SQLite.

One production run and one shadow run of the same small inbox, made once for the module. The
shadow runs under a tuned resolution.yaml (accept.min_confidence 0.85 → 0.8, the large_amount
gate 25,000 → 5,000) and a better intake and fraud agent on S-104. Each claim is a copy of the
water claim C-1042 whose description says when the leak began:

  claim  production                          shadow                              label
  S-101  ACCEPTED covered (both 0.9)         ACCEPTED covered (unchanged)        covered
  S-102  ESCALATED low_confidence (0.82)     ACCEPTED covered (floor now 0.8)    covered
  S-103  ACCEPTED covered, 9,000 claimed     ESCALATED policy_gate (gate 5,000)  not_covered
  S-104  ESCALATED: intake missed the start  ACCEPTED covered: intake reads it,  covered
         date, fraud says not_covered (7.1)  fraud looks 4.2(b) up and agrees
  S-105  ACCEPTED covered                    (left out of the shadow's inbox)    covered
  S-106  (added after production ran)        ACCEPTED covered                    -
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.llms.scripted import final, lookup
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    KNOWN_START,
    POLICY_COVERED,
    Script,
    claim_named,
    looked_up,
    responding,
    water_claim_saying_when,
)
from tests.support.paths import ROOT, SAMPLE_POLICIES
from tests.support.store_rows import Rows, table_rows

SURE = {**POLICY_COVERED, "confidence": 0.9}
UNSURE = {**POLICY_COVERED, "confidence": 0.82}
AMOUNTS = {"S-103": 9000}
LABELS = "claim_id,label\nS-101,covered\nS-102,covered\nS-103,not_covered\nS-104,covered\n"


def _claim_of(messages: object) -> str:
    return claim_named(messages, ("S-101", "S-102", "S-103", "S-104", "S-105", "S-106"))


def script(shadow: bool) -> Script:
    """Answers chosen by the claim in the conversation, so the order claims run in is free."""

    def intake(m: object) -> str:
        claim = _claim_of(m)
        if claim == "S-104" and not shadow:
            return final(INTAKE_WATER)  # misses the sentence saying when the leak began
        return final({**KNOWN_START, "amount_claimed": AMOUNTS.get(claim, 4200)})

    def policy(m: object) -> str:
        if not looked_up(m):
            return lookup("HM-HOME-001", "4.2(b)")
        return final(UNSURE if _claim_of(m) == "S-102" else SURE)

    def fraud(m: object) -> str:
        claim = _claim_of(m)
        if claim == "S-104" and not shadow:
            return final(FRAUD_EXCLUDED)  # 7.1 from memory
        if not looked_up(m):
            return lookup("HM-HOME-001", "4.2(b)")
        return final(UNSURE if claim == "S-102" else SURE)

    return responding(intake=intake, policy=policy, fraud=fraud)


def _tuned_config(folder: Path) -> Path:
    config = folder / "config"
    shutil.copytree(ROOT / "config", config)
    path = config / "resolution.yaml"
    rules = yaml.safe_load(path.read_text(encoding="utf-8"))
    rules["accept"]["min_confidence"] = 0.8
    for gate in rules["gates"]:
        if gate["name"] == "large_amount":
            gate["above"] = 5000
    path.write_text(yaml.safe_dump(rules), encoding="utf-8")
    return config


def audit_head(database: Path) -> tuple[int, str]:
    [head] = table_rows(database)["audit_head"]
    return int(head["seq"]), str(head["hash"])


@dataclass(frozen=True)
class Tuning:
    home: Path
    production: Path  # the production store's file
    before: Rows  # its rows before the shadow run
    after: Rows  # and after it
    head_before: tuple[int, str]
    head_after: tuple[int, str]
    shadow_out: str  # what the shadow run printed
    labels: Path


@pytest.fixture(scope="module")
def tuning(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuning]:
    """Production decides S-101..S-105; the shadow `tuned` then decides S-101..S-104 and S-106
    under the tuned config and the better agents."""
    root = tmp_path_factory.mktemp("shadow")
    home, inbox = root / "home", root / "inbox"
    for claim in ("S-101", "S-102", "S-103", "S-104", "S-105"):
        path = water_claim_saying_when(inbox, claim)
        if claim in AMOUNTS:
            data = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps({**data, "amount": AMOUNTS[claim]}), encoding="utf-8")
    labels = root / "labels.csv"
    labels.write_text(LABELS, encoding="utf-8")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CLAIMS_CREW_HOME", str(home))
        env.setenv("CLAIMS_CREW_POLICIES", str(SAMPLE_POLICIES))
        env.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
        env.setenv("CREWAI_STORAGE_DIR", str(root / "crewai"))
        env.delenv("MODEL", raising=False)
        assert review_inbox(inbox, 1, Console(file=io.StringIO()), script(False)) == 0
        production = home / "claims.sqlite"
        before, head_before = table_rows(production), audit_head(production)

        (inbox / "S-105.json").unlink()
        water_claim_saying_when(inbox, "S-106")
        env.setenv("CLAIMS_CREW_CONFIG", str(_tuned_config(root)))
        console = Console(record=True, width=200)
        failed = review_inbox(inbox, 1, console, script(True), shadow="tuned")
        assert failed == 0
        yield Tuning(
            home=home,
            production=production,
            before=before,
            after=table_rows(production),
            head_before=head_before,
            head_after=audit_head(production),
            shadow_out=console.export_text(),
            labels=labels,
        )


def compare_json(tuning: Tuning, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(tuning.home))
    result = CliRunner().invoke(main, ["compare", "tuned", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def m(count: int, denominator: int) -> dict[str, Any]:
    return {
        "figure": round(count / denominator, 6) if denominator else None,
        "count": count,
        "denominator": denominator,
    }


def test_a_shadow_run_changes_no_production_row(
    tuning: Tuning, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert tuning.before["decisions"], "production decided nothing: the test would prove nothing"
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(tuning.home))  # where the audit key is kept
    assert tuning.after == tuning.before
    assert tuning.head_after == tuning.head_before == (5, tuning.head_before[1])
    assert Store(tuning.production).verify_audit().ok
    # The shadow decided every claim of its inbox, decided ones included, in its own file.
    shadow = Store(tuning.home / "shadows" / "tuned.sqlite")
    decided = {c.claim_id: c.outcome for c in shadow.decided_claims()}
    assert decided == {
        "S-101": "ACCEPTED",
        "S-102": "ACCEPTED",
        "S-103": "ESCALATED",
        "S-104": "ACCEPTED",
        "S-106": "ACCEPTED",
    }
    assert shadow.verify_audit().ok  # its own chain, apart from production's
    assert "Shadow run tuned" in tuning.shadow_out
    assert "claims-crew compare tuned" in tuning.shadow_out


@pytest.mark.empty_database  # the home is a copy of the tuned one
def test_a_stopped_shadow_run_resumes_and_fresh_starts_over(
    tuning: Tuning, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A claim already in the shadow is not reviewed again unless asked (--fresh)."""
    home = tmp_path / "home"
    shutil.copytree(tuning.home, home)
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(home))
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    inbox = tmp_path / "inbox"
    for claim in ("S-101", "S-107"):
        water_claim_saying_when(inbox, claim)

    def agrees(m: object) -> str:
        return final(SURE) if looked_up(m) else lookup("HM-HOME-001", "4.2(b)")

    answers = responding(intake=lambda _m: final(KNOWN_START), policy=agrees, fraud=agrees)
    console = Console(record=True, width=200)
    assert review_inbox(inbox, 1, console, answers, shadow="tuned") == 0
    assert "1 to review" in console.export_text()  # S-101 is in the shadow already
    assert len(answers("intake").calls) == 1
    console = Console(record=True, width=200)
    assert review_inbox(inbox, 1, console, answers, shadow="tuned", fresh=True) == 0
    assert "2 to review" in console.export_text()
    shadow = Store(home / "shadows" / "tuned.sqlite")
    assert sorted(c.claim_id for c in shadow.decided_claims()) == ["S-101", "S-107"]


def test_compare_counts_what_changed(tuning: Tuning, monkeypatch: pytest.MonkeyPatch) -> None:
    data = compare_json(tuning, monkeypatch)
    assert data["totals"] == {
        "production": 5,
        "shadow": 5,
        "compared": 4,
        "production_only": 1,
        "shadow_only": 1,
        "outcome_changed": 3,  # S-102, S-103, S-104
        "answer_changed": 3,  # an escalation has no decided answer
        "agents_changed": {"policy": 0, "fraud": 1},  # S-104's fraud agent
        "new_escalations": 1,  # S-103
        "resolved_escalations": 2,  # S-102, S-104
        "transitions": [
            {"before": "ESCALATED", "after": "ACCEPTED", "claims": 2},
            {"before": "ACCEPTED", "after": "ESCALATED", "claims": 1},
        ],
    }
    claims = {c["claim_id"]: c for c in data["claims"]}
    assert [c["presence"] for c in data["claims"]] == [
        "both",
        "both",
        "both",
        "both",
        "production_only",
        "shadow_only",
    ]
    assert claims["S-105"]["after"] is None and claims["S-106"]["before"] is None
    s104 = claims["S-104"]
    assert s104["before"]["answers"] == {"policy": "covered", "fraud": "not_covered"}
    assert s104["after"]["answers"] == {"policy": "covered", "fraud": "covered"}
    assert s104["before"]["open_fields"] == {"damage_start_date": "null"}
    assert s104["after"]["open_fields"] == {}
    assert s104["fields_closed"] == ["damage_start_date"] and s104["escalation"] == "resolved"
    assert claims["S-103"]["escalation"] == "new"
    assert claims["S-103"]["after"]["reason_codes"] == ["policy_gate"]
    assert not claims["S-101"]["outcome_changed"] and claims["S-101"]["escalation"] is None
    # The report's headline rates over the four compared claims.
    assert data["before"]["conflict"] == m(1, 4)  # S-104
    assert data["after"]["conflict"] == m(0, 4)
    assert data["before"]["escalated"] == m(2, 4)
    assert data["after"]["escalated"] == m(1, 4)
    assert data["before"]["automatic"] == m(2, 4)
    assert data["after"]["automatic"] == m(3, 4)
    # Disagreement by field: the start date was null in the one conflict, and then no conflict.
    fields = {f["field"]: f for f in data["by_field"]}
    assert data["by_field"][0]["field"] == "damage_start_date"
    start = fields["damage_start_date"]
    assert start["before"]["null_in_conflicts"] == m(1, 1)
    assert start["before"]["relied_open_in_conflicts"] == m(1, 1)
    assert start["after"]["null_in_conflicts"] == m(0, 0)
    assert start["before"]["open_in_agreements"] == m(0, 3)  # S-101, S-102, S-103
    assert start["after"]["open_in_agreements"] == m(0, 4)
    assert data["labels"] is None


def test_compare_with_labels_shows_safe_and_unsafe_before_and_after(
    tuning: Tuning, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = compare_json(tuning, monkeypatch, "--labels", str(tuning.labels))
    labels = data["labels"]
    assert labels["matched"] == 4 and labels["unmatched"] == []
    assert labels["before"]["safe_coverage"] == m(1, 4)  # S-101
    assert labels["before"]["unsafe_automatic"] == m(1, 4)  # S-103 paid, labelled not_covered
    assert labels["after"]["safe_coverage"] == m(3, 4)  # S-101, S-102, S-104
    assert labels["after"]["unsafe_automatic"] == m(0, 4)  # S-103 now goes to a person
    assert [u["claim_id"] for u in labels["unsafe_before"]] == ["S-103"]
    assert labels["unsafe_after"] == []
    verdicts = {
        c["claim_id"]: (c["before"]["verdict"], c["after"]["verdict"]) for c in data["claims"][:4]
    }
    assert verdicts == {
        "S-101": ("safe", "safe"),
        "S-102": ("left_for_person", "safe"),
        "S-103": ("unsafe", "left_for_person"),
        "S-104": ("left_for_person", "safe"),
    }


def compare_text(tuning: Tuning, monkeypatch: pytest.MonkeyPatch, columns: int) -> str:
    """What `claims-crew compare tuned` prints in a terminal `columns` wide."""
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(tuning.home))
    result = CliRunner().invoke(main, ["compare", "tuned"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


def test_compare_in_the_terminal_leads_with_the_totals(
    tuning: Tuning, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = compare_text(tuning, monkeypatch, 240)
    assert out.index("Shadow tuned against production") < out.index("Claim by claim")
    assert "ESCALATED (low_confidence) → ACCEPTED" in out  # S-102's row
    assert "not_covered → covered" in out  # S-104's fraud agent


def test_compare_at_80_columns_keeps_claim_ids_and_outcomes_whole(
    tuning: Tuning, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten columns do not fit 80 with every word whole: the claim ids and the outcomes do."""
    out = compare_text(tuning, monkeypatch, 80)
    table = out[out.index("Claim by claim") :]
    assert max(len(line) for line in table.splitlines()) <= 80
    words = set(table.split())
    assert {"S-101", "S-102", "S-103", "S-104", "S-105", "S-106"} <= words
    assert {"ESCALATED", "(low_confidence)", "ACCEPTED"} <= words


@pytest.mark.parametrize("name", ["../prod", "a/b", ".hidden", "", "x" * 65, "tuned.sqlite"])
def test_a_bad_shadow_name_is_refused_before_anything_runs(name: str) -> None:
    result = CliRunner().invoke(main, ["run", "--shadow", name])
    assert result.exit_code == 2
    assert "shadow name" in result.output and "is not allowed" in result.output
    result = CliRunner().invoke(main, ["compare", name])
    assert result.exit_code == 2
    assert "is not allowed" in result.output


def test_compare_on_a_missing_shadow_says_so(
    tuning: Tuning, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(tuning.home))
    result = CliRunner().invoke(main, ["compare", "nothing", "--json"])
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "shadow"
    assert "no shadow named 'nothing'" in error["message"] and "shadows: tuned" in error["message"]
    assert not (tuning.home / "shadows" / "nothing.sqlite").exists()  # never made empty


@pytest.mark.empty_database  # production's store is never made
def test_crewai_run_takes_the_shadow_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`crewai run` takes no options: CLAIMS_CREW_SHADOW names the shadow, and production is
    never opened (an empty inbox: no model is asked)."""
    from claims_crew.main import run

    (tmp_path / "claims" / "inbox").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    monkeypatch.setenv("CLAIMS_CREW_SHADOW", "nightly")
    run()
    assert "Shadow run nightly" in capsys.readouterr().out
    home = tmp_path / "home"
    assert (home / "shadows" / "nightly.sqlite").is_file()
    assert not (home / "claims.sqlite").exists()

    monkeypatch.setenv("CLAIMS_CREW_SHADOW", "../claims")
    with pytest.raises(SystemExit) as stopped:
        run()
    assert stopped.value.code == 1
    assert "is not allowed" in capsys.readouterr().err

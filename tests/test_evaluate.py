"""`claims-crew evaluate LABELS`: every figure of `--json` against counts made by hand.

The store holds the thirteen decisions of tests/support/report.py (table in test_report.py).
The labels below cover eleven of them and one claim the store never decided:

  R01 covered      ACCEPTED covered         safe
  R02 not_covered  ACCEPTED covered         unsafe; both agents agreed on covered
  R03 ambiguous    PREFERRED covered        decided though ambiguous
  R04 ambiguous    ESCALATED (conflict)     abstained, warranted
  R05 not_covered  ESCALATED (conflict)     warranted: the answers differed
  R07 not_covered  ADJUDICATED covered      unsafe
  R08 ambiguous    ADJUDICATION_REQUIRED    abstained, warranted
  R10 covered      ESCALATED parse_error    warranted: fraud's answer did not parse
  R11 covered      ESCALATED low_confidence needless: both said covered, and it is
  R12 not_covered  ESCALATED policy_gate    warranted: both agreed on the wrong answer
  R13 covered      ESCALATED policy_not_found, no answers: warranted
  X-999 covered    not in the store
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.errors import LabelError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.report import load_rows
from claims_crew.report.evaluate import evaluate, parse_labels, read_labels
from claims_crew.store import Store
from tests.support.paths import ROOT
from tests.support.report import known_store

LABELS = {
    "R01": "covered",
    "R02": "not_covered",
    "R03": "ambiguous",
    "R04": "ambiguous",
    "R05": "not_covered",
    "R07": "not_covered",
    "R08": "ambiguous",
    "R10": "covered",
    "R11": "covered",
    "R12": "not_covered",
    "R13": "covered",
    "X-999": "covered",
}


def m(count: int, denominator: int) -> dict[str, Any]:
    figure = round(count / denominator, 6) if denominator else None
    return {"figure": figure, "count": count, "denominator": denominator}


@pytest.fixture
def known(sample_library: PolicyLibrary, tmp_path: Path) -> Store:
    return known_store(sample_library, tmp_path / "claims")


def write_csv(path: Path) -> Path:
    path.write_text(
        "claim_id,label,note\n" + "".join(f"{c},{lab},checked\n" for c, lab in LABELS.items()),
        encoding="utf-8",
    )
    return path


def evaluate_json(labels: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["evaluate", str(labels), "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_every_figure(known: Store, tmp_path: Path) -> None:
    data = evaluate_json(write_csv(tmp_path / "labels.csv"))
    assert data["labels"] == 12
    assert data["matched"] == 11
    assert data["unmatched"] == ["X-999"]
    assert data["label_counts"] == {"covered": 4, "not_covered": 4, "ambiguous": 3}
    assert data["automatic"] == m(4, 11)  # R01, R02, R03, R07
    assert data["safe_coverage"] == m(1, 11)  # R01
    assert data["unsafe_automatic"] == m(2, 11)  # R02, R07
    assert data["ambiguous_decided"] == m(1, 11)  # R03
    assert [u["claim_id"] for u in data["unsafe"]] == ["R02", "R07"]
    assert data["unsafe"][1] == {
        "claim_id": "R07",
        "outcome": "ADJUDICATED",
        "answer": "covered",
        "label": "not_covered",
    }
    # Agreed, with a definite label: R01, R02, R11, R12; wrong together: R02, R12.
    assert data["consensus_error"] == m(2, 4)
    assert data["consensus_error_decided"] == m(1, 2)  # R02 was accepted; R12 was gated
    # Left for a person: R04, R05, R08, R10, R11, R12, R13; needless: R11.
    assert data["escalation_precision"] == m(6, 7)
    assert data["escalation_precision_by_reason"] == {
        "adjudication_required": m(1, 1),
        "low_confidence": m(0, 1),
        "needs_more_evidence": m(2, 2),
        "parse_error": m(1, 1),
        "policy_gate": m(1, 1),
        "policy_not_found": m(1, 1),
        "over_authority": m(1, 1),  # R12: 29,750 payable, over the 25,000 authority limit
    }
    assert data["abstention_correctness"] == m(2, 3)  # R04, R08 of R03, R04, R08
    assert data["outcomes_by_label"] == {
        "ACCEPTED": {"covered": 1, "not_covered": 1, "ambiguous": 0},
        "PREFERRED": {"covered": 0, "not_covered": 0, "ambiguous": 1},
        "ADJUDICATED": {"covered": 0, "not_covered": 1, "ambiguous": 0},
        "ADJUDICATION_REQUIRED": {"covered": 0, "not_covered": 0, "ambiguous": 1},
        "ESCALATED": {"covered": 3, "not_covered": 2, "ambiguous": 1},
    }


def test_jsonl_gives_the_same_figures(known: Store, tmp_path: Path) -> None:
    jsonl = tmp_path / "labels.jsonl"
    jsonl.write_text(
        "\n".join(json.dumps({"claim_id": c, "label": lab}) for c, lab in LABELS.items()) + "\n\n",
        encoding="utf-8",
    )
    assert evaluate_json(jsonl) == evaluate_json(write_csv(tmp_path / "labels.csv"))


def test_terminal_output_names_the_unsafe_decisions(known: Store, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["evaluate", str(write_csv(tmp_path / "l.csv"))], env={"COLUMNS": "160"}
    )
    assert result.exit_code == 0, result.output
    assert "11 of 12 labelled claims" in result.output and "X-999" in result.output
    assert "R07: ADJUDICATED covered, labelled not_covered" in result.output


def test_pure_evaluation_of_no_rows() -> None:
    empty = evaluate([], {"C-1": "covered"})
    assert empty.matched == 0 and empty.unmatched == ["C-1"]
    assert empty.safe_coverage.figure is None and empty.safe_coverage.denominator == 0


def test_label_spellings_are_normalised(tmp_path: Path) -> None:
    text = "claim_id , label\nC-1, Not Covered\nC-2,COVERED\nC-3,ambiguous\n"
    assert parse_labels(text, "x.csv", jsonl=False) == {
        "C-1": "not_covered",
        "C-2": "covered",
        "C-3": "ambiguous",
    }
    odd = tmp_path / "labels.txt"
    odd.write_text('{"claim_id": "C-1", "label": "covered"}\n', encoding="utf-8")
    assert read_labels(odd) == {"C-1": "covered"}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("l.csv", "claim,decision\nC-1,covered\n", "missing claim_id, label"),
        ("l.csv", "claim_id,label\nC-1,maybe\n", "line 2: label 'maybe' is not one of"),
        ("l.csv", "claim_id,label\nC-1,covered\nC-1,covered\n", "line 3: claim C-1 is labelled"),
        ("l.csv", "claim_id,label\n,covered\n", "line 2: claim_id is missing"),
        ("l.csv", "claim_id,label\nC-1,covered,extra\n", "line 2: more values than columns"),
        ("l.csv", "claim_id,label\n", "no labels"),
        ("l.jsonl", '{"claim_id": "C-1", "label": "covered"}\nnot json\n', "line 2: not JSON"),
        ("l.jsonl", '{"claim_id": "C-1"}\n', "line 1: no 'label' key"),
        ("l.jsonl", '["C-1", "covered"]\n', "line 1: expected an object"),
        ("l.jsonl", '{"claim_id": 7, "label": "covered"}\n', "claim_id is missing or empty"),
    ],
)
def test_bad_label_files_exit_2_with_the_reason(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LabelError) as caught:
        read_labels(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    result = CliRunner().invoke(main, ["evaluate", str(path)])
    assert result.exit_code == 2
    assert message in result.stderr
    as_json = CliRunner().invoke(main, ["evaluate", str(path), "--json"])
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["error"]["code"] == "labels"


def test_missing_labels_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "nope.csv")])
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_shipped_labels_cover_the_sample_inbox() -> None:
    labels = read_labels(ROOT / "examples" / "labels.csv")
    inbox = {
        p.stem for p in (ROOT / "claims" / "inbox").iterdir() if p.suffix in (".json", ".yaml")
    }
    assert set(labels) == inbox
    assert labels["C-1042"] == "ambiguous"  # the start date decides it, and nobody knows it
    assert labels["C-1045"] == "not_covered" and labels["C-1047"] == "not_covered"
    rows = load_rows(Store())
    assert evaluate(rows, labels).unmatched == sorted(labels)  # an empty store decides none

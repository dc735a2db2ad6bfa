"""`claims-crew policy tree NUMBER --on DAY` and `policy show NUMBER CLAUSE --on DAY`: the
policy as issued, each clause marked with where its words come from."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from click.testing import CliRunner
from fpdf import FPDF

from claims_crew.cli import main
from claims_crew.policy.in_force import default_day
from claims_crew.policy.issued import IssuedPolicy
from tests.support.paths import SAMPLE_POLICIES
from tests.support.readings import shared_cache


def _rows(nodes: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for node in nodes:
        yield node
        yield from _rows(node["children"])


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    return result.output


def test_tree_json_gives_each_clause_its_source() -> None:
    payload = json.loads(_invoke("policy", "tree", "HM-25-00417", "--on", "2025-08-10", "--json"))
    rows = {row["id"]: row for row in _rows(payload["tree"])}
    assert rows["7.12"]["source"] == {
        "from": "endorsement",
        "endorsement": "HM-E-09",
        "title": "Hot tubs and spa pools",
        "effective": "2025-07-01",
        "change": "add",
        "pages": [1],
    }
    assert rows["4.2(a)"]["source"] == {"from": "form", "pages": rows["4.2(a)"]["pages"]}
    issued = payload["policy"]["issued"]
    assert (issued["number"], issued["form"], issued["on"]) == (
        "HM-25-00417",
        "HM-HOME-001",
        "2025-08-10",
    )
    assert [e["endorsement"] for e in issued["endorsements"]] == ["HM-E-07", "HM-E-09"]
    assert payload["policy"]["id"] == "HM-HOME-001"


def test_before_the_endorsement_the_tree_has_no_added_clause() -> None:
    payload = json.loads(_invoke("policy", "tree", "MA-25-0193", "--on", "2025-08-01", "--json"))
    ids = {row["id"] for row in _rows(payload["tree"])}
    assert "Section II.B.7" in ids and "Section II.B.8" not in ids
    assert payload["policy"]["issued"]["endorsements"] == []
    later = json.loads(_invoke("policy", "tree", "MA-25-0193", "--on", "2025-10-01", "--json"))
    rows = {row["id"]: row for row in _rows(later["tree"])}
    assert rows["Section II.B.8"]["source"]["endorsement"] == "MA-E-12"
    assert rows["Section II.B.8"]["kind"] == "exclusion"


def test_tree_in_the_terminal_marks_the_form_and_the_endorsements() -> None:
    out = _invoke("policy", "tree", "HM-25-00417", "--on", "2025-08-10")
    assert "policy HM-25-00417 (Priya Raman)" in out and "as in force on 2025-08-10" in out
    added = next(line for line in out.splitlines() if "7.12 " in line)
    assert "HM-E-09 p.1 added" in added
    replaced = next(line for line in out.splitlines() if "8.3 " in line)
    assert "HM-E-09 p.1 replaced" in replaced
    flood = next(line for line in out.splitlines() if "7.2 " in line)
    assert "form p.4" in flood


@pytest.mark.slow  # four runs of the command; the PDFs read once, into the run's cache
def test_tree_marks_each_reading_no_lead_confirmed_as_it_reads_now(
    tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared_cache(tmp_path, session_cache, monkeypatch)
    args = ("policy", "tree", "HM-25-00417", "--on", "2025-08-10")
    shipped = json.loads(_invoke(*args, "--json"))["policy"]["issued"]["endorsements"]
    assert [(e["reading"], e["confirm"]) for e in shipped] == [("confirmed", None)] * 2
    assert "reading" not in _invoke(*args)  # nothing to mark: the samples are confirmed

    # HM-E-07 never confirmed; HM-E-09 confirmed as it once read, not as it reads now.
    root = Path(shutil.copytree(SAMPLE_POLICIES, tmp_path / "policies"))
    kept = root / "confirmations.yaml"
    lines = kept.read_text(encoding="utf-8").splitlines(keepends=True)
    once = "0" * 64
    kept.write_text(
        "".join(
            line.replace(line.split('digest: "')[1][:64], once) if '"HM-E-09"' in line else line
            for line in lines
            if '"HM-E-07"' not in line
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(root))
    marked = json.loads(_invoke(*args, "--json"))["policy"]["issued"]["endorsements"]
    assert [(e["endorsement"], e["reading"], e["confirm"]) for e in marked] == [
        ("HM-E-07", "unconfirmed", "claims-crew policy confirm HM-E-07"),
        ("HM-E-09", "changed", "claims-crew policy confirm HM-E-09"),
    ]
    assert marked[1]["confirmed_by"] == "claims-lead"
    out = " ".join(_invoke(*args).split())
    assert "HM-E-07: reading NOT confirmed by a person" in out
    assert "HM-E-09: reading CHANGED since claims-lead confirmed it" in out
    assert "confirm: `claims-crew policy confirm HM-E-09`" in out


def test_show_gives_the_clause_in_force_and_the_forms_words() -> None:
    detail = json.loads(
        _invoke("policy", "show", "HM-25-00417", "8.3", "--on", "2025-08-10", "--json")
    )
    assert "£750" in detail["text"]
    assert detail["source"]["endorsement"] == "HM-E-09"
    assert "£500" in detail["source"]["original"]
    form = json.loads(_invoke("policy", "show", "HM-HOME-001", "8.3", "--json"))
    assert "£500" in form["text"] and form["source"]["from"] == "form"


def test_the_default_day_is_today_within_the_period_else_its_first_day() -> None:
    policy = IssuedPolicy.model_validate(
        {"number": "P-1", "form": "F", "period": {"from": "2025-01-01", "to": "2025-12-31"}}
    )
    assert default_day(policy, date(2025, 5, 5)) == date(2025, 5, 5)
    assert default_day(policy, date(2026, 5, 5)) == date(2025, 1, 1)
    assert default_day(policy, date(2024, 5, 5)) == date(2025, 1, 1)


def test_changes_lists_what_the_reader_read_numbered_with_the_clause_reached() -> None:
    payload = json.loads(_invoke("policy", "changes", "HM-E-09", "--json"))
    assert payload["form"] == "HM-HOME-001" and payload["corrected"] is None
    assert [(c["number"], c["kind"], c["clause"], c["page"]) for c in payload["changes"]] == [
        (1, "add", "7", 1),
        (2, "replace", "8.3", 1),
    ]
    assert payload["changes"][0]["text"].startswith("7.12 Hot tubs and spa pools")
    out = _invoke("policy", "changes", "MA-E-12")
    assert "MA-E-12 on MR-AUTO-001: 1 changes read" in out and "Section II.B" in out


def test_changes_of_an_unknown_endorsement_is_an_error() -> None:
    result = CliRunner().invoke(main, ["policy", "changes", "HM-E-00", "--json"])
    assert result.exit_code != 0
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "unknown_endorsement" and "HM-E-07" in error["message"]


def test_the_tree_page_marks_amended_clauses_with_the_forms_words(tmp_path: Path) -> None:
    page = tmp_path / "tree.html"
    _invoke("policy", "tree", "HM-25-00417", "--on", "2025-03-10", "--html", str(page))
    html = page.read_text(encoding="utf-8")
    assert "HM-E-07 p.1 replaced" in html and "HM-E-09" not in html
    assert html.count("<summary>The form's words</summary>") == 1
    assert "less than 10 years old" in html
    assert html.count('class="page-break"') == 5  # the form's pages, none added


@pytest.mark.slow
def test_changes_of_a_pdf_not_yet_registered_reads_as_a_registered_one(tmp_path: Path) -> None:
    draft = tmp_path / "draft.pdf"
    draft.write_bytes((SAMPLE_POLICIES / "endorsements" / "hm_e09_hot_tubs.pdf").read_bytes())
    listed = json.loads(_invoke("policy", "changes", "HM-E-09", "--json"))
    payload = json.loads(
        _invoke("policy", "changes", str(draft), "--form", "HM-HOME-001", "--json")
    )
    assert payload["form"] == "HM-HOME-001" and payload["corrected"] is None
    assert payload["changes"] == listed["changes"]
    out = _invoke("policy", "changes", str(draft), "--form", "HM-HOME-001")
    assert "draft.pdf on HM-HOME-001: 2 changes read" in out


@pytest.mark.slow
def test_changes_of_a_new_pdf_on_its_form_by_the_new_phrases(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in (
        "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.",
        "FLOOD AND SEEPAGE",
        "Exclusions 7.1 and 7.2 do not apply.",
    ):
        pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    draft = tmp_path / "flood.pdf"
    pdf.output(str(draft))
    payload = json.loads(
        _invoke("policy", "changes", str(draft), "--form", "HM-HOME-001", "--json")
    )
    assert [(c["kind"], c["target"], c["clause"]) for c in payload["changes"]] == [
        ("not_apply", "7.1", "7.1"),
        ("not_apply", "7.2", "7.2"),
    ]


def test_changes_of_a_new_pdf_names_a_missing_file_or_form(tmp_path: Path) -> None:
    for args, code in (
        ([str(tmp_path / "none.pdf"), "--form", "HM-HOME-001"], "not_found"),
        (
            [str(SAMPLE_POLICIES / "endorsements" / "hm_e09_hot_tubs.pdf"), "--form", "NO-SUCH"],
            "unknown_policy",
        ),
    ):
        result = CliRunner().invoke(main, ["policy", "changes", *args, "--json"])
        assert result.exit_code == 2, result.output
        assert json.loads(result.stdout)["error"]["code"] == code


def test_the_tree_page_marks_each_reading_as_the_terminal_tree_does(
    tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # HM-E-07 never confirmed, HM-E-09 confirmed as it reads now (the samples' line kept).
    shared_cache(tmp_path, session_cache, monkeypatch)
    root = Path(shutil.copytree(SAMPLE_POLICIES, tmp_path / "policies"))
    kept = root / "confirmations.yaml"
    lines = kept.read_text(encoding="utf-8").splitlines(keepends=True)
    kept.write_text("".join(line for line in lines if '"HM-E-07"' not in line), encoding="utf-8")
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(root))
    page = tmp_path / "tree.html"
    _invoke("policy", "tree", "HM-25-00417", "--on", "2025-08-10", "--html", str(page))
    html = lxml.html.fromstring(page.read_bytes())

    rows = {
        row.get("data-endorsement"): [" ".join(td.text_content().split()) for td in row]
        for row in html.xpath('//table[@id="readings"]//tr[@class="reading"]')
    }
    assert list(rows) == ["HM-E-07", "HM-E-09"]
    assert html.xpath('//tr[@data-endorsement="HM-E-07"]/@data-reading') == ["unconfirmed"]
    assert rows["HM-E-07"][2] == "NOT confirmed by a person"
    assert rows["HM-E-07"][3].startswith("claims-crew policy confirm HM-E-07 ")
    at = next(line for line in lines if '"HM-E-09"' in line).split('at: "')[1].split('"')[0]
    assert rows["HM-E-09"][2] == f"confirmed by claims-lead at {at}"
    assert rows["HM-E-09"][3] == "–"  # nothing to do
    waiting = " ".join(html.get_element_by_id("readings-waiting").text_content().split())
    assert "HM-E-07;" in waiting and "HM-E-09" not in waiting
    assert "go to a person" in waiting

"""`claims-crew policy …`: the JSON shapes are a contract; bad input exits non-zero with a code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from tests.support.paths import SAMPLE_POLICIES


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_clauses_json_shape() -> None:
    code, out, _ = _run("policy", "clauses", "HM-HOME-001", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["policy"]["id"] == "HM-HOME-001"
    assert payload["policy"]["pages"] == 5
    row = next(c for c in payload["clauses"] if c["id"] == "4.2(b)")
    assert row == {
        "id": "4.2(b)",
        "label": "(b)",
        "title": row["title"],
        "kind": "grant",
        "kind_reason": "inherited from 4.2 (words: 'We cover')",
        "pages": [2],
        "parent": "4.2",
    }


def test_show_json_shape_by_label_and_by_path() -> None:
    code, out, _ = _run(
        "policy", "show", str(SAMPLE_POLICIES / "harbour_home.pdf"), "7.1", "--json"
    )
    assert code == 0
    payload = json.loads(out)
    assert set(payload) == {
        "id",
        "label",
        "title",
        "kind",
        "kind_reason",
        "pages",
        "parent",
        "text",
        "source",
    }
    assert payload["source"] == {"from": "form", "pages": payload["pages"]}
    assert payload["kind"] == "exclusion"
    assert "weeks or months" in " ".join(payload["text"].split())


def test_search_json_shape() -> None:
    code, out, _ = _run(
        "policy", "search", "HM-HOME-001", "flood river sea water", "--limit", "2", "--json"
    )
    assert code == 0
    hits = json.loads(out)["hits"]
    assert len(hits) == 2
    assert set(hits[0]) == {"id", "label", "kind", "pages", "snippet", "score"}
    assert hits[0]["id"] == "7.2"


def test_plain_output_is_a_table() -> None:
    code, out, _ = _run("policy", "clauses", "WF-TRAVEL-001")
    assert code == 0
    assert "WF-TRAVEL-001" in out and "exclusion" in out


def test_unknown_clause_exits_non_zero_with_near_ids() -> None:
    code, out, err = _run("policy", "show", "HM-HOME-001", "4.9", "--json")
    assert code == 3
    assert json.loads(out)["error"]["code"] == "clause_not_found"
    assert "clause_not_found" in err


@pytest.mark.parametrize("as_json", [True, False])
def test_bad_pdf_exits_non_zero_with_reason_code(tmp_path: Path, as_json: bool) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + b"\x00" * 100)
    args = ["policy", "clauses", str(bad)] + (["--json"] if as_json else [])
    code, out, err = _run(*args)
    assert code == 2
    assert "malformed" in err
    if as_json:
        assert json.loads(out) == {
            "error": {"code": "malformed", "message": json.loads(out)["error"]["message"]}
        }


def test_unknown_policy_id_exits_non_zero() -> None:
    code, out, _ = _run("policy", "clauses", "NOPE-1", "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "unknown_policy"


def test_cli_imports_commands_only_when_they_run() -> None:
    """Starting the CLI loads neither the model stack nor the store, web app or report."""
    import subprocess
    import sys

    code = (
        "import sys, claims_crew.cli as c\n"
        "from click.testing import CliRunner\n"
        "CliRunner().invoke(c.main, ['config', '--help'])\n"
        "heavy = ['crewai', 'fastapi', 'claims_crew.store', 'claims_crew.report', 'llama_cpp']\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"

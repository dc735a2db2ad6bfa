"""A scanned policy wording (no text layer) read by OCR into the clause tree, marked as such, and
kept from claims until policies/index.yaml says a person reviewed it.

The scan is made here: page 3 of the real ISO HO-3 homeowners form from ../shared/policies,
drawn at 300 dpi and saved as a PDF that holds only the picture, as a scanner would give it.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pypdfium2
import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.errors import PolicyError
from claims_crew.models import ClaimFile
from claims_crew.policy.library import PolicyLibrary, extract_pages
from claims_crew.policy.segment import segment
from claims_crew.resolver import policy_checks
from claims_crew.resolver.config import load_config
from claims_crew.resolver.reread import policy_view
from tests.support.ocr import needs_tesseract, rendered_page
from tests.support.paths import ROOT, shared_pdf

HO3 = "iso_ho3_ho0003_1000_us_homeowners.pdf"
PAGE = 3
POLICY_ID = "SCAN-HO3"


def write_index(root: Path, reviewed: bool | None = None) -> None:
    entry = (
        f"  {POLICY_ID}:\n    file: scan.pdf\n    product: Homeowners 3 (scanned)\n"
        "    line: home\n    in_force_from: 2024-01-01\n"
    )
    if reviewed is not None:
        entry += f"    ocr_reviewed: {str(reviewed).lower()}\n"
    (root / "index.yaml").write_text(f"policies:\n{entry}", encoding="utf-8")


@pytest.fixture(scope="module")
def scan_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A policies folder holding the image-only PDF of the page, and its index entry."""
    root = tmp_path_factory.mktemp("scanned")
    image = rendered_page(shared_pdf(HO3), PAGE - 1).convert("L")
    image.save(root / "scan.pdf", "PDF", resolution=300)
    write_index(root)
    return root


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index cache for the module: the page is read by OCR once, then the index is reused."""
    return tmp_path_factory.mktemp("cache")


def the_claim() -> ClaimFile:
    data = json.loads((ROOT / "claims" / "inbox" / "C-1042.json").read_text(encoding="utf-8"))
    return ClaimFile.model_validate({**data, "policy_id": POLICY_ID})


def test_the_scan_has_no_text_layer(scan_root: Path) -> None:
    """The premise: what the reader child finds on the scan is no text, as before OCR."""
    path = scan_root / "scan.pdf"
    with pytest.raises(PolicyError) as caught:
        extract_pages(path, path.read_bytes())
    assert caught.value.code == "no_text_layer"
    assert len(pypdfium2.PdfDocument(path)) == 1


@needs_tesseract
@pytest.mark.slow
def test_a_scanned_page_is_read_by_ocr_into_the_clauses_its_text_layer_gives(
    scan_root: Path, cache: Path
) -> None:
    doc = PolicyLibrary(root=scan_root, cache_dir=cache).open(POLICY_ID, unreviewed_ocr=True)
    assert doc.ocr is not None and doc.ocr.confidence >= 0.85
    original = shared_pdf(HO3)
    printed = segment([extract_pages(original, original.read_bytes())[PAGE - 1]])
    # The section's first three parts, A to C, with their numbered and lettered clauses, as
    # the insurer's own text layer segments them.
    expected = [c.id for c in printed if c.id.startswith("Section I")][:18]
    assert "Section I.C.1(b)" in expected
    assert [c.id for c in doc.clauses if c.id in expected] == expected
    assert all(note.page == 1 and note.confidence < 0.8 for note in doc.ocr.low_confidence_lines)


@needs_tesseract
@pytest.mark.slow
def test_an_unreviewed_scan_is_kept_from_claims_until_the_index_says_reviewed(
    scan_root: Path, cache: Path, tmp_path: Path
) -> None:
    library = PolicyLibrary(root=scan_root, cache_dir=cache)
    with pytest.raises(PolicyError) as caught:
        library.open(POLICY_ID)
    assert caught.value.code == "ocr_unreviewed"
    assert "ocr_reviewed: true" in caught.value.message
    view = policy_view(library, POLICY_ID, ["Section I.A"])
    assert view.unreadable == "ocr_unreviewed"
    early = policy_checks(the_claim(), view, load_config(ROOT / "config"))
    assert early is not None and early.outcome == "ESCALATED"
    assert early.reason_codes == ["policy_unreadable"] and "ocr_unreviewed" in early.reason

    reviewed_root = tmp_path / "policies"
    reviewed_root.mkdir()
    (reviewed_root / "scan.pdf").write_bytes((scan_root / "scan.pdf").read_bytes())
    write_index(reviewed_root, reviewed=True)
    reviewed = policy_view(
        PolicyLibrary(root=reviewed_root, cache_dir=cache), POLICY_ID, ["Section I.A"]
    )
    assert reviewed.unreadable is None and reviewed.clauses["Section I.A"] is not None
    assert reviewed.in_force_on(date(2025, 11, 3))


@needs_tesseract
@pytest.mark.slow
def test_policy_tree_marks_the_ocr_reading_and_its_doubtful_lines(
    scan_root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(scan_root))
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(tmp_path))
    doc = PolicyLibrary(root=scan_root, cache_dir=cache).open(POLICY_ID, unreviewed_ocr=True)
    assert doc.ocr is not None and doc.ocr.low_confidence_lines
    home_cache = tmp_path / "cache" / "policy-index"
    home_cache.mkdir(parents=True)
    for index in cache.iterdir():  # the module's one reading, not a second OCR
        (home_cache / index.name).write_bytes(index.read_bytes())

    result = CliRunner().invoke(main, ["policy", "tree", POLICY_ID, "--json"])
    assert result.exit_code == 0, result.output
    ocr = json.loads(result.output)["policy"]["ocr"]
    assert ocr["reviewed"] is False
    assert ocr["confidence"] == doc.ocr.confidence
    assert [n["text"] for n in ocr["low_confidence_lines"]] == [
        n.text for n in doc.ocr.low_confidence_lines
    ]
    assert ocr["doubtful_clauses"] and set(ocr["doubtful_clauses"]) <= {c.id for c in doc.clauses}

    shown = CliRunner().invoke(main, ["policy", "tree", POLICY_ID])
    assert shown.exit_code == 0, shown.output
    assert "read by OCR" in shown.output and "NOT reviewed" in shown.output
    assert "OCR: check against the page" in shown.output
    assert doc.ocr.low_confidence_lines[0].text in shown.output

    page = tmp_path / "tree.html"
    written = CliRunner().invoke(main, ["policy", "tree", POLICY_ID, "--html", str(page)])
    assert written.exit_code == 0, written.output
    html = page.read_text(encoding="utf-8")
    assert 'id="ocr-note"' in html and f"{len(doc.ocr.low_confidence_lines)} low-confidence" in html
    assert html.count("OCR: check against the page") == len(ocr["doubtful_clauses"])


def test_without_tesseract_a_scan_is_needs_ocr_with_the_install_line(
    scan_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_TESSERACT", str(tmp_path / "no-such-tesseract"))
    library = PolicyLibrary(root=scan_root, cache_dir=tmp_path / "cache")
    with pytest.raises(PolicyError) as caught:
        library.open(POLICY_ID)
    assert caught.value.code == "needs_ocr"
    assert "apt-get install -y tesseract-ocr" in caught.value.message
    assert policy_view(library, POLICY_ID, []).unreadable == "needs_ocr"
    assert not list((tmp_path / "cache").glob("*.sqlite"))  # nothing half-written

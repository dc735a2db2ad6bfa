"""A filled form's values are part of its text of record: each filled field a `Label: value`
line of the page its widget sits on, labelled by its tooltip or its name; check boxes and radio
groups by their chosen option; empty fields and unchecked boxes left out. Forms are made and
filled here with pypdf (tests/support/forms.py); a flattened copy is read by OCR."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, NameObject, TextStringObject

from claims_crew.documents.limits import (
    MAX_FORM_FIELD_CHARS,
    MAX_FORM_FIELDS,
    AttachmentError,
    ClaimBudget,
)
from claims_crew.documents.pdf import reader_process
from claims_crew.documents.pdf.form_fields import readable
from claims_crew.documents.pdf.text import read_pdf_layer, read_text_layer
from claims_crew.documents.read import FORM_FIELDS_MARKER, read_attachment
from claims_crew.documents.record import AttachmentRecord
from tests.support.attachments import INBOX
from tests.support.forms import (
    LOSS_NOTICE,
    filled_estimate,
    filled_loss_notice,
    flattened,
    text_fields_pdf,
)
from tests.support.ocr import needs_tesseract
from tests.support.paths import SAMPLE_POLICIES

ESTIMATE_VALUES = {
    "Estimate_EstimateNumberIdentifier_A": "NAB-2026-0117",
    "Vehicle_MakeModel_A": "2019 Mazda CX-5",
    "Estimate_PartsAmount_A": "850.00",
    "Estimate_LabourAmount_A": "520.00",
    "Estimate_TotalAmount_A": "1,370.00",
    "Vehicle_Drivable_A": "/No",
}


def _read(name: str, data: bytes) -> AttachmentRecord:
    return read_attachment(name, data, ClaimBudget())


def _fields(record: AttachmentRecord, page: int = 1) -> list[str]:
    """The page's form field lines, after its marker."""
    text = record.pages[page - 1].text
    assert FORM_FIELDS_MARKER in text, text
    return [line for line in text.split(FORM_FIELDS_MARKER, 1)[1].split("\n") if line]


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Loss_IncidentDate_A", "Loss incident date"),
        ("NamedInsured_FullName_A", "Named insured full name"),
        ("Policy_PolicyNumberIdentifier_A", "Policy policy number identifier"),
        ("form1[0].Page1[0].Vehicle_VINIdentifier_B", "Vehicle VIN identifier"),
        ("loss_cause", "Loss cause"),
        ("Vehicle2_LossAmount", "Vehicle 2 loss amount"),
    ],
)
def test_a_field_without_a_tooltip_is_labelled_by_its_name(name: str, label: str) -> None:
    assert readable(name) == label


def test_the_loss_notices_filled_values_reach_its_text_of_record() -> None:
    record = _read(LOSS_NOTICE, (INBOX / LOSS_NOTICE).read_bytes())
    [page] = record.pages
    assert page.source == "text" and record.problem is None
    # The printed labels first, as the text layer has them; the values after the marker.
    printed, _ = page.text.split(FORM_FIELDS_MARKER)
    assert "DATE OF LOSS" in printed and "14/02/2026" not in printed
    assert _fields(record) == [
        "Policy number: HM-HOME-001",  # its tooltip
        "Named insured full name: Priya Raman",  # no tooltip: its name
        "Mailing address of insured: 27 Heron Row, Cardiff CF11 6QT",
        "Loss incident date: 14/02/2026",
        "Location of loss: 27 Heron Row, Cardiff CF11 6QT",
        "Cause of loss: Storm",  # the radio group's chosen option
        "Description of loss: Gusts of 70 mph in the night tore tiles off the roof and rain "
        "came through the bedroom ceiling.",
        "Roof damaged: Yes",  # the checked box; "reported to police" is unchecked, left out
        "Estimated amount of loss: 4,850.00",
    ]
    # The empty phone box and the unchecked box are not there at all.
    assert "phone" not in page.text.split(FORM_FIELDS_MARKER)[1].lower()
    assert "police" not in page.text.split(FORM_FIELDS_MARKER)[1].lower()


def test_an_estimate_filled_here_gives_its_amounts_and_chosen_options() -> None:
    record = _read("estimate.pdf", filled_estimate(ESTIMATE_VALUES))
    assert _fields(record) == [
        "Estimate number: NAB-2026-0117",
        "Vehicle make model: 2019 Mazda CX-5",
        "Parts: 850.00",
        "Labour: 520.00",
        "Estimate total: 1,370.00",
        "Vehicle drivable: No",
    ]
    checked = _read("towed.pdf", filled_estimate({"Estimate_TowingIndicator_A": "/Yes"}))
    assert _fields(checked) == ["Vehicle towed: Yes"]


def test_a_form_filled_with_nothing_adds_nothing() -> None:
    record = _read("blank.pdf", filled_estimate({}))
    assert FORM_FIELDS_MARKER not in record.text
    assert "ESTIMATE NUMBER" in record.text


def test_each_field_is_placed_on_the_page_its_widget_sits_on() -> None:
    writer = PdfWriter()
    writer.append(PdfReader(INBOX / "C-1049-plumber.pdf"))
    writer.append(PdfReader(io.BytesIO(filled_estimate(ESTIMATE_VALUES))))
    out = io.BytesIO()
    writer.write(out)
    record = _read("report-and-estimate.pdf", out.getvalue())
    assert len(record.pages) == 3
    assert FORM_FIELDS_MARKER not in record.pages[0].text + record.pages[1].text
    assert "Estimate total: 1,370.00" in _fields(record, page=3)


def test_an_overlong_value_is_cut_and_says_so() -> None:
    long = "water " * (MAX_FORM_FIELD_CHARS // 3)
    record = _read("long.pdf", filled_loss_notice({"Loss_LossDescription_A": long}))
    [line] = _fields(record)
    assert line.startswith("Description of loss: water water")
    assert line.endswith(f"[… cut at {MAX_FORM_FIELD_CHARS:,} characters]")
    assert len(line) < MAX_FORM_FIELD_CHARS + 80


def test_a_form_past_the_field_cap_is_refused_as_too_large() -> None:
    bomb = text_fields_pdf({f"Field{n}": "" for n in range(MAX_FORM_FIELDS + 1)})
    with pytest.raises(AttachmentError) as refused:
        _read("fields.pdf", bomb)
    assert refused.value.code == "too_large"
    assert f"fields.pdf: its form has more than {MAX_FORM_FIELDS:,} fields" in str(refused.value)
    # At the cap it is read.
    at_cap = text_fields_pdf({f"Field{n}": "" for n in range(MAX_FORM_FIELDS - 1)} | {"Z": "z"})
    assert _fields(_read("fields.pdf", at_cap), page=1) == ["Z: z"]


def test_xfa_datasets_give_the_values_no_acroform_field_holds() -> None:
    datasets = (
        b'<xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/"><xfa:data>'
        b"<form1><Insured><FullName>Priya Raman</FullName><Phone/></Insured>"
        b"<Loss_IncidentDate>2026-02-14</Loss_IncidentDate></form1></xfa:data></xfa:datasets>"
    )
    pdf = text_fields_pdf({"Loss_IncidentDate": "14/02/2026"}, blank_pages=2, xfa_datasets=datasets)
    record = _read("xfa.pdf", pdf)
    # The AcroForm's own value sits on its page; the XFA value it also holds is not repeated.
    assert _fields(record, page=2) == ["Loss incident date: 14/02/2026"]
    assert _fields(record, page=1) == ["Full name: Priya Raman"]
    # A datasets packet with a document type declaration (an entity bomb's way in) is not
    # read, and is named as not read (tests/test_form_facts.py).
    bomb = datasets.replace(b"<xfa:datasets", b'<!DOCTYPE x [<!ENTITY a "aaaa">]><xfa:datasets')
    record = _read("xfa.pdf", text_fields_pdf({}, xfa_datasets=bomb))
    assert "Priya Raman" not in record.text
    assert [part.name for part in record.unread] == ["xfa.pdf/xfa"]


@pytest.mark.slow  # reads every sample policy, twice
def test_a_policy_wordings_text_never_takes_form_fields() -> None:
    filled = (INBOX / LOSS_NOTICE).read_bytes()
    layer = read_pdf_layer(INBOX / LOSS_NOTICE, filled)
    assert read_text_layer(INBOX / LOSS_NOTICE, filled) == layer.pages
    assert "Priya Raman" not in "".join(layer.pages)
    assert "Named insured full name: Priya Raman" in layer.fields[0]
    for policy in sorted(SAMPLE_POLICIES.glob("*.pdf")):
        data = policy.read_bytes()
        layer = read_pdf_layer(policy, data)
        assert layer.pages == read_text_layer(policy, data)
        assert layer.fields == [[] for _ in layer.pages] and layer.form_refused is None


@needs_tesseract
def test_a_page_with_only_fields_on_it_is_still_read_by_ocr() -> None:
    """Its filled values do not make it a text page: it has no text layer, so it is scanned."""
    record = _read("fields-only.pdf", text_fields_pdf({"Loss_IncidentDate_A": "14/02/2026"}))
    [page] = record.pages
    assert page.source == "ocr"
    assert _fields(record) == ["Loss incident date: 14/02/2026"]


@needs_tesseract
def test_a_flattened_copy_of_the_filled_form_is_read_by_ocr() -> None:
    flat = flattened((INBOX / LOSS_NOTICE).read_bytes())
    assert PdfReader(io.BytesIO(flat)).get_fields() is None  # pixels only: no form left
    record = _read("flattened.pdf", flat)
    [page] = record.pages
    assert page.source == "ocr" and FORM_FIELDS_MARKER not in page.text
    # The values pdfium drew in the boxes, read back from the pixels.
    assert "Priya Raman" in page.text and "14/02/2026" in page.text
    assert "DATE OF LOSS" in page.text


def test_a_reply_without_fields_reads_as_a_pdf_without_a_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader's reply may leave "fields" out (a reader of before forms were read)."""
    reader = tmp_path / "reader.py"
    reader.write_text(
        "import json, sys\nsys.stdin.buffer.read()\n"
        'sys.stdout.write(json.dumps({"pages": ["a page of text", ""]}))\n'
    )
    monkeypatch.setattr(reader_process, "READER_SCRIPT", reader)
    data = (INBOX / LOSS_NOTICE).read_bytes()
    layer = read_pdf_layer(Path(LOSS_NOTICE), data)
    assert layer == (["a page of text", ""], [[], []], None, ())


def test_a_choice_field_gives_its_value_and_a_list_box_every_chosen_one() -> None:
    writer = PdfWriter(clone_from=io.BytesIO(text_fields_pdf({"Rooms_A": "", "Cover_A": ""})))
    rooms, cover = (a.get_object() for a in writer.pages[0]["/Annots"])
    for field, value in ((rooms, ["Bedroom", "Landing"]), (cover, ["Buildings"])):
        field[NameObject("/FT")] = NameObject("/Ch")
        field[NameObject("/Opt")] = ArrayObject(TextStringObject(v) for v in value)
    rooms[NameObject("/V")] = ArrayObject(TextStringObject(v) for v in ("Bedroom", "Landing"))
    cover[NameObject("/V")] = TextStringObject("Buildings")
    out = io.BytesIO()
    writer.write(out)
    assert _fields(_read("choice.pdf", out.getvalue())) == [
        "Rooms: Bedroom, Landing",
        "Cover: Buildings",
    ]

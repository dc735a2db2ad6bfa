"""Real filled forms that nobody here wrote (Apache Tika's and PDFBox's test files, in
../shared/corpus/forms/ with their sources): what a claims handler needs from each, written down
from the corpus README and the forms themselves before reading them, reaches the text of record
through the real intake. An XFA form's datasets rewritten to hold a raw "&", as real filled forms
do, is read whole."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from claims_crew.documents.limits import ClaimBudget
from claims_crew.documents.read import FORM_FIELDS_MARKER, read_attachment
from claims_crew.documents.record import AttachmentRecord
from tests.support.forms import corpus_form, with_datasets

XFA_FORM = "tika_xfa_govdocs1_258578.pdf"
# The roster's 24 filled values (5 of its 29 boxes are empty). Its tooltips for the teachers'
# boxes are their row numbers, and so are their names ("_1"): the label stays the number.
XFA_VALUES = [
    "School Name: my_school",
    "Grade Level: my_grade_level",
    "Number of Classes: my_number_of_cl",
    *(f"{n}: my_teacher_name{n}" for n in range(1, 5)),
    *(f"Room [{n}]: my_room{n}" for n in range(1, 5)),
    *(f"of Students [{n}]: my_numSt{n}" for n in range(1, 5)),
    "Name: my_name",
    "Phone Number: my_phone",
    "Email: my_email",
    "Date Requested:  1st choice: my_date1",
    "2nd choice: my_date2",
    "3rd choice: my_date3",
    "Time(s) available for programs: my_times",
    "TextField1: my_comments",
    "DropDownList1: 2: Young Abraham Lincoln (Ranger Ed)",
]
LOREM = (
    "Long rich text field: Lorem ipsum dolor sit amet, consetetur sadipscing elitr, sed diam "
    "nonumy eirmod tempor invidunt ut labore et dolore magna aliquyam erat, sed diam voluptua."
)
EXPECTED: dict[str, list[str]] = {
    "tika_acroform3.pdf": [
        "A text field: TIKA-1226",
        "A check box: Yes",
        "A combo box: comboExportB",
        "A list box: exportListItemC",
    ],
    "pdfbox_acroform_filled.pdf": [
        "Text field: Heinz Mustermann",
        "Check box 1: Ja",
        "Group option: Option 2",
        "List box: XYZ",
        "List box multi select: Earth, Sun, Venus",
        "Combo box: VW",
        "Combo box editable: Chicken",
        "Text field multi line: This is a line\nThis is a second line\nAnd a third line",
        "Text field multi line RT: Formatted Richttext\nIn a multi-Line field",
    ],
    "pdfbox_AcroFormsBasicFields.pdf": [
        "Checkbox default value: Yes",
        "Radio button group default value: Radio button 01",
        "List box default value: Opt01",
        "Combo box default value: Opt01",
        "Text field default value: DefaultValue",
        "Rich text field default value: DefaultValue",
        "Rich text field filled: Fomatted Text",  # sic, as the form has it
        LOREM,  # a rich-text value held in a stream, not the stream's dictionary
        "Checkbox group checked: Option 3",
    ],
    XFA_FORM: XFA_VALUES,
}


@pytest.fixture(autouse=True)
def _no_ocr(monkeypatch: pytest.MonkeyPatch) -> None:
    """pdfbox_acroform_filled.pdf has no printed text; OCR of its page is not what is tested."""
    monkeypatch.setenv("CLAIMS_CREW_TESSERACT", "/nonexistent/tesseract")


def _fields(record: AttachmentRecord) -> str:
    text = record.pages[0].text
    assert FORM_FIELDS_MARKER in text, text
    return text.split(FORM_FIELDS_MARKER, 1)[1]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_real_forms_values_reach_its_text_of_record(name: str) -> None:
    record = read_attachment(name, corpus_form(name), ClaimBudget())
    fields = _fields(record)
    missing = [item for item in EXPECTED[name] if f"\n\n{item}" not in fields]
    assert not missing, fields
    assert record.unread == []
    # No dictionary or stream is ever written out as a value.
    assert "{'/" not in record.text and "IndirectObject" not in record.text


def test_the_real_xfa_forms_datasets_with_a_raw_ampersand_are_read_whole() -> None:
    """The roster's datasets rewritten as a filling tool that does not escape "&" writes them,
    with a value no AcroForm field holds: every value is read, the "&" kept."""
    form = corpus_form(XFA_FORM)
    written = (
        b"<Program_Requested>Humanitarian & Compassionate</Program_Requested>"
        b"<Comments>Q&A after the talk</Comments>"
    )
    datasets = _datasets(form).replace(b"</topmostSubform", written + b"</topmostSubform")
    record = read_attachment(XFA_FORM, with_datasets(form, datasets), ClaimBudget())
    fields = _fields(record)
    for item in [
        *XFA_VALUES,
        "Program requested: Humanitarian & Compassionate",
        "Comments: Q&A after the talk",
    ]:
        assert f"\n\n{item}" in fields, fields
    assert record.unread == []


def _datasets(pdf: bytes) -> bytes:
    xfa = PdfReader(io.BytesIO(pdf)).trailer["/Root"]["/AcroForm"]["/XFA"]
    names = [str(name) for name in xfa[::2]]
    data: bytes = xfa[2 * names.index("datasets") + 1].get_object().get_data()
    return data

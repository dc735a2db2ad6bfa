"""What a filled form says, as facts a handler can read: a signature field as who signed and
when (never its bytes), a value held in a stream as its text, labels that are labels, and an XFA
packet either read (a raw "&" and all) or named as not read. Forms are made here with pypdf."""

from __future__ import annotations

import pytest
from pypdf.generic import (
    ArrayObject,
    ByteStringObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

from claims_crew.documents.limits import ClaimBudget
from claims_crew.documents.pdf.form_fields import is_label
from claims_crew.documents.read import FORM_FIELDS_MARKER, read_attachment
from claims_crew.documents.record import AttachmentRecord
from tests.support.forms import text_fields_pdf, with_field_entries

# A signer's line is short: a name, a day and a note that it was not verified.
MAX_SIGNATURE_LINE = 100
DATASETS = (
    b'<xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/"><xfa:data>'
    b"<form1><Sponsorship><Category>Humanitarian & Compassionate</Category>"
    b"<Applicant>Amal Haddad</Applicant></Sponsorship></form1></xfa:data></xfa:datasets>"
)


@pytest.fixture(autouse=True)
def _no_ocr(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forms made here have blank pages; OCR of them (seconds each) is not what is tested:
    without an engine, the page is left unread and its fields are read all the same."""
    monkeypatch.setenv("CLAIMS_CREW_TESSERACT", "/nonexistent/tesseract")


def _read(name: str, data: bytes) -> AttachmentRecord:
    return read_attachment(name, data, ClaimBudget())


def _fields(record: AttachmentRecord) -> list[str]:
    text = record.pages[0].text
    assert FORM_FIELDS_MARKER in text, text
    return [line for line in text.split(FORM_FIELDS_MARKER, 1)[1].split("\n") if line]


def _signature(entries: dict[str, object]) -> DictionaryObject:
    """A signature dictionary as a signing tool writes one: its facts and its bytes."""
    value = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Sig"),
            NameObject("/Filter"): NameObject("/Adobe.PPKLite"),
            NameObject("/SubFilter"): NameObject("/adbe.pkcs7.detached"),
            # A PKCS#7 blob is some kilobytes of binary; these bytes stand in for one.
            NameObject("/Contents"): ByteStringObject(bytes(range(256)) * 8),
            NameObject("/ByteRange"): ArrayObject(NumberObject(n) for n in (0, 840, 960, 240)),
        }
    )
    for key, entry in entries.items():
        value[NameObject(key)] = TextStringObject(str(entry))
    return value


def _signed_form() -> bytes:
    blank = text_fields_pdf({"ApplicantSignature": "", "WitnessSignature": "", "Name": "Amal"})
    return with_field_entries(
        blank,
        {
            "ApplicantSignature": {
                "/FT": NameObject("/Sig"),
                "/V": _signature(
                    {"/Name": "Amal Haddad", "/M": "D:20260220101500+01'00'", "/Reason": "Agreed"}
                ),
            },
            # Signed, but the dictionary names no one and no time.
            "WitnessSignature": {"/FT": NameObject("/Sig"), "/V": _signature({})},
        },
    )


def test_a_signature_field_gives_who_signed_and_when_never_its_bytes() -> None:
    record = _read("signed.pdf", _signed_form())
    lines = _fields(record)
    assert lines == [
        "Applicant signature: Signed: Amal Haddad, 2026-02-20 (not verified)",
        "Witness signature: signature present (not verified)",
        "Name: Amal",
    ]
    for line in lines[:2]:
        assert len(line) <= MAX_SIGNATURE_LINE and line.isprintable(), line
    assert "/Contents" not in record.text and "PPKLite" not in record.text


def test_a_signature_dictionary_is_never_dumped_whatever_field_holds_it() -> None:
    """A text field whose value is a dictionary (a broken or hostile form) gives no value."""
    blank = text_fields_pdf({"Notes": "", "Signed": ""})
    bad = _signature({"/Name": "Amal\x00\x07 Haddad\x1b[31m", "/M": "D:2026"})
    form = with_field_entries(
        blank,
        {
            "Notes": {"/V": DictionaryObject({NameObject("/Filter"): NameObject("/Flate")})},
            "Signed": {"/FT": NameObject("/Sig"), "/V": bad},
        },
    )
    # Control characters are dropped from the name; a date without a day is no date.
    assert _fields(_read("odd.pdf", form)) == ["Signed: Signed: Amal Haddad[31m (not verified)"]


def test_a_value_held_in_a_stream_gives_its_text() -> None:
    stream = DecodedStreamObject()
    stream.set_data(b"Water came through the ceiling\r of the back bedroom.")
    form = with_field_entries(
        text_fields_pdf({"LossDescription": ""}), {"LossDescription": {"/V": stream}}
    )
    assert _fields(_read("stream.pdf", form)) == [
        "Loss description: Water came through the ceiling",
        "of the back bedroom.",
    ]


@pytest.mark.parametrize(
    ("tooltip", "label"),
    [
        ("undefined", False),
        ("Null", False),
        ("", False),
        ("  ", False),
        ("to", False),
        ("20", False),
        ("[1]", False),
        ("Price of the vehicle", True),
        ("Age", True),
        ("ID", True),
        ("Room [1]", True),
    ],
)
def test_a_tooltip_is_a_label_only_when_it_names_something(tooltip: str, label: bool) -> None:
    assert is_label(tooltip) is label


def test_a_tooltip_that_is_no_label_gives_way_to_the_fields_name() -> None:
    values = {
        "PurchasePrice": "12,000",
        "Model_Year": "2019",
        "vehicle_make": "Mazda",
        "OwnerName": "Amal Haddad",
    }
    tips = {"PurchasePrice": "to", "Model_Year": "20", "vehicle_make": "undefined"}
    entries = {name: {"/TU": TextStringObject(tip)} for name, tip in tips.items()}
    entries["OwnerName"] = {"/TU": TextStringObject("Name of the registered owner")}
    form = with_field_entries(text_fields_pdf(values), entries)
    assert _fields(_read("labels.pdf", form)) == [
        "Purchase price: 12,000",
        "Model year: 2019",
        "Vehicle make: Mazda",
        "Name of the registered owner: Amal Haddad",
    ]


def test_xfa_values_with_a_raw_ampersand_are_read_whole() -> None:
    record = _read("sponsorship.pdf", text_fields_pdf({}, xfa_datasets=DATASETS))
    assert _fields(record) == ["Category: Humanitarian & Compassionate", "Applicant: Amal Haddad"]
    assert record.unread == []


@pytest.mark.parametrize(
    ("datasets", "why"),
    [
        (b"\x00\x01\x02 not XML at all", "its XML cannot be read"),
        (
            DATASETS.replace(b"<xfa:datasets", b'<!DOCTYPE x [<!ENTITY a "aaaa">]><xfa:datasets'),
            "it declares a document type, which is refused",
        ),
    ],
)
def test_an_xfa_packet_not_read_is_named_on_the_record_and_in_its_text(
    datasets: bytes, why: str
) -> None:
    record = _read("sponsorship.pdf", text_fields_pdf({"Applicant": "Amal"}, xfa_datasets=datasets))
    [part] = record.unread
    assert part.name == "sponsorship.pdf/xfa"
    assert part.content_type == "application/vnd.adobe.xfa+xml"
    assert (part.size, part.code, part.decoration) == (len(datasets), "unreadable", False)
    assert part.reason.startswith(why), part.reason
    assert _fields(record) == ["Applicant: Amal", part.line()]
    assert "Not read: sponsorship.pdf/xfa, application/vnd.adobe.xfa+xml" in record.text


def test_an_xfa_packet_repaired_in_part_is_read_and_still_named() -> None:
    """An unclosed element: the parser recovers what it can, and says values may be missing."""
    broken = DATASETS.replace(b"</Applicant>", b"")
    record = _read("sponsorship.pdf", text_fields_pdf({}, xfa_datasets=broken))
    [part] = record.unread
    assert "values may be missing" in part.reason
    lines = _fields(record)
    assert lines[0] == "Category: Humanitarian & Compassionate" and lines[-1] == part.line()

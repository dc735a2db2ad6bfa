"""Fillable forms for the tests: the sample loss notice and a body-shop estimate (made by
scripts/sample_forms.py, field names in ACORD's style; no ACORD form is included, as ACORD's
forms are licensed to its members), and hostile forms made here field by field with pypdf."""

from __future__ import annotations

import io
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pypdf import PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    StreamObject,
    TextStringObject,
)

from tests.support.attachments import INBOX
from tests.support.paths import ROOT, shared_corpus_file
from tests.support.scripts import load_script

LOSS_NOTICE = "C-1051-loss-notice.pdf"
LOSS_NOTICE_CLAIM = INBOX / "C-1051.json"


def sample_forms() -> ModuleType:
    return load_script(ROOT / "scripts" / "sample_forms.py")


def _blank(title: str, fields: object) -> bytes:
    forms = sample_forms()
    policies = load_script(ROOT / "scripts" / "build_policies.py")
    blank: bytes = forms.blank_form(policies.build_pdf, policies.layout, title, fields)
    return blank


def filled_estimate(values: Mapping[str, str]) -> bytes:
    """The body-shop estimate form, filled with `values` by pypdf."""
    forms = sample_forms()
    filled: bytes = forms.fill(_blank(forms.ESTIMATE_TITLE, forms.ESTIMATE), values)
    return filled


def filled_loss_notice(values: Mapping[str, str]) -> bytes:
    """The property loss notice form, filled with `values` by pypdf."""
    forms = sample_forms()
    filled: bytes = forms.fill(_blank(forms.LOSS_NOTICE_TITLE, forms.LOSS_NOTICE), values)
    return filled


def flattened(pdf: bytes) -> bytes:
    """The form's pages drawn with their fields, as an image-only PDF."""
    data: bytes = sample_forms().flattened(pdf)
    return data


def text_fields_pdf(
    values: Mapping[str, str], blank_pages: int = 1, xfa_datasets: bytes | None = None
) -> bytes:
    """`blank_pages` pages with no text at all and, on the last, one text field per entry of
    `values` (name → value, "" for an empty field); with `xfa_datasets`, an XFA form whose
    datasets packet is those bytes."""
    writer = PdfWriter()
    for _ in range(blank_pages):
        writer.add_blank_page(612, 792)
    page = writer.pages[-1]
    annots = ArrayObject()
    for index, (name, value) in enumerate(values.items()):
        y = 700 - (index % 60) * 11
        field = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Annot"),
                NameObject("/Subtype"): NameObject("/Widget"),
                NameObject("/FT"): NameObject("/Tx"),
                NameObject("/T"): TextStringObject(name),
                NameObject("/Rect"): ArrayObject(FloatObject(v) for v in (72, y, 300, y + 10)),
            }
        )
        if value:
            field[NameObject("/V")] = TextStringObject(value)
        annots.append(writer._add_object(field))
    page[NameObject("/Annots")] = annots
    form = DictionaryObject({NameObject("/Fields"): ArrayObject(annots)})
    if xfa_datasets is not None:
        stream = DecodedStreamObject()
        stream.set_data(xfa_datasets)
        form[NameObject("/XFA")] = ArrayObject(
            [TextStringObject("datasets"), writer._add_object(stream)]
        )
    writer._root_object[NameObject("/AcroForm")] = form
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# What C-1051's loss notice states only in its fields, quoted as its text of record has them.
FORM_DATE = "Loss incident date: 14/02/2026"
FORM_CAUSE = "Cause of loss: Storm"
FORM_DAMAGE = "tore tiles off the roof and rain came through the bedroom ceiling"
STORM_CLAUSE = "storm, meaning strong winds of at least 55 miles per hour"
INTAKE_FORM: dict[str, Any] = {
    "loss_type": "storm",
    "cause": "gusts of wind tore tiles off the roof",
    "date_of_loss": "2026-02-14",
    "damage_start_date": None,
    "amount_claimed": 4850,
    "unknowns": ["damage_start_date"],
    "sources": {
        "loss_type": {"where": LOSS_NOTICE, "quote": FORM_CAUSE},
        "cause": {"where": LOSS_NOTICE, "quote": FORM_DAMAGE},
        "date_of_loss": {"where": LOSS_NOTICE, "quote": FORM_DATE},
        "amount_claimed": {"where": "amount"},
    },
}


def fields_array_pdf(count: int) -> bytes:
    """A one-page PDF whose form's /Fields array holds `count` empty text fields, each written in
    the array itself (about 10 bytes a field, so a million fit under a document's byte cap),
    written out by hand: pypdf's writer would take minutes over such an array."""
    fields = b"[" + b"<</T(f)>>" * count + b"]"
    objects = [
        b"<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields 4 0 R>>>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>",
        fields,
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, table)
    return bytes(out)


# The real filled forms of ../shared/corpus/forms (public test files of Apache Tika and PDFBox,
# Apache-2.0; its README.md says where each came from and what a handler must read from it).
def corpus_form(name: str) -> bytes:
    """A real form's bytes; the test skips, saying why, where the corpus is absent."""
    return shared_corpus_file(f"forms/{name}").read_bytes()


def with_datasets(pdf: bytes, datasets: bytes) -> bytes:
    """The PDF with its XFA form's datasets packet rewritten to `datasets`, by pypdf."""
    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    xfa = writer._root_object["/AcroForm"]["/XFA"].get_object()
    names = [str(name) for name in xfa[::2]]
    stream = xfa[2 * names.index("datasets") + 1].get_object()
    stream.set_data(datasets)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def with_field_entries(pdf: bytes, entries: Mapping[str, Mapping[str, Any]]) -> bytes:
    """The PDF with entries set on the fields named (a field's name → key → pypdf object)."""
    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    for annot in writer.pages[-1]["/Annots"]:
        field = annot.get_object()
        for key, value in entries.get(str(field["/T"]), {}).items():
            # A stream is always an indirect object in a PDF.
            indirect = isinstance(value, StreamObject)
            field[NameObject(key)] = writer._add_object(value) if indirect else value
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()

"""Fillable sample forms: a property loss notice and a body-shop estimate, made and filled here.

The industry's first-notice-of-loss forms are ACORD's, and ACORD's forms are copyrighted and
licensed to its members, so none is included. These forms are equivalents written for the
project: their printed labels are typeset with the sample policies' own PDF writer
(``build_policies.build_pdf``), their fields are added with pypdf, and their field names follow
ACORD's naming style (``NamedInsured_FullName_A``, ``Loss_IncidentDate_A``: the entity, the
item, and a letter for the copy of the field). Some fields carry a tooltip (/TU), the label a
form shows a person; others only their name. Each form has text fields, a check box and a
radio group.

``fill`` fills a form with pypdf's ``update_page_form_field_values``, which draws each value's
appearance stream, so that a viewer shows it and pdfium can draw (flatten) the filled form;
``flattened`` does that: the pages drawn with their fields, as pixels in an image-only PDF, as a
filled form comes back from a scanner.

scripts/make_attachment_samples.py makes the sample claim C-1051's loss notice with it, and
tests/test_form_fields.py both forms.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pypdfium2
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

# Where every field's box starts, right of its printed label (build_policies' margin is 72 pt).
FIELD_X = 262.0
FIELD_RIGHT = 540.0
BOX = 10.0  # a check box or radio button's side
# Field flags (PDF 32000-1, 12.7.4.2.1): a radio group, and one whose choice cannot be cleared.
RADIO_FLAGS = (1 << 15) | (1 << 14)
SCAN_DPI = 300
FIXED_TIME = "D:20260101000000Z"


@dataclass(frozen=True)
class Field:
    """One field: its kind (text, check or radio), ACORD-style name, tooltip (None: none), the
    label printed beside it, and a radio group's option names (each printed on a line)."""

    kind: str
    name: str
    tooltip: str | None
    label: str
    options: tuple[str, ...] = ()


LOSS_NOTICE_TITLE = "PROPERTY LOSS NOTICE"
LOSS_NOTICE = (
    Field("text", "Policy_PolicyNumberIdentifier_A", "Policy number", "POLICY NUMBER"),
    Field("text", "NamedInsured_FullName_A", None, "NAME OF INSURED (First, Last)"),
    Field("text", "NamedInsured_MailingAddress_A", "Mailing address of insured", "ADDRESS"),
    Field("text", "NamedInsured_PhoneNumber_A", "Phone number of insured", "PHONE"),
    Field("text", "Loss_IncidentDate_A", None, "DATE OF LOSS"),
    Field("text", "Loss_LocationAddress_A", "Location of loss", "LOCATION OF LOSS"),
    Field(
        "radio",
        "Loss_CauseOfLoss_A",
        "Cause of loss",
        "CAUSE OF LOSS",
        ("Fire", "Theft", "Storm", "Escape of water"),
    ),
    Field("text", "Loss_LossDescription_A", "Description of loss", "DESCRIPTION OF LOSS"),
    Field("check", "Loss_PoliceReportIndicator_A", "Reported to police", "REPORTED TO POLICE"),
    Field("check", "Loss_RoofDamageIndicator_A", "Roof damaged", "ROOF DAMAGED"),
    Field("text", "Loss_EstimatedAmount_A", "Estimated amount of loss", "ESTIMATED AMOUNT"),
)
ESTIMATE_TITLE = "BODY SHOP REPAIR ESTIMATE"
ESTIMATE = (
    Field("text", "Estimate_EstimateNumberIdentifier_A", "Estimate number", "ESTIMATE NUMBER"),
    Field("text", "Vehicle_MakeModel_A", None, "VEHICLE (Year, Make, Model)"),
    Field("text", "Vehicle_RegistrationNumber_A", "Registration plate", "PLATE"),
    Field("text", "Estimate_PartsAmount_A", "Parts", "PARTS"),
    Field("text", "Estimate_LabourAmount_A", "Labour", "LABOUR"),
    Field("text", "Estimate_TotalAmount_A", "Estimate total", "TOTAL"),
    Field("check", "Estimate_TowingIndicator_A", "Vehicle towed", "TOWED"),
    Field("radio", "Vehicle_Drivable_A", "Vehicle drivable", "DRIVABLE", ("Yes", "No")),
)


def _source(title: str, fields: Sequence[Field], note: str) -> str:
    lines = [title, note, ""]
    for field in fields:
        lines.append(field.label)
        lines.extend(f"{option}" for option in field.options)
    return "\n".join(lines) + "\n"


def blank_form(
    build: Callable[[str], bytes],
    layout: Callable[[str], tuple[str, list[list[Any]]]],
    title: str,
    fields: Sequence[Field],
    note: str = "Complete every box that applies.",
) -> bytes:
    """The form's printed labels (one page), with each field's box beside its label."""
    source = _source(title, fields, note)
    _, pages = layout(source)
    baseline = {str(line.text): float(line.y) for line in pages[0]}
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(build(source))))
    page = writer.pages[0]
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    resources = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/Helv"): writer._add_object(font)})}
    )
    refs = []
    for field in fields:
        made = _field(writer, field, baseline)
        refs.append(made)
        widgets = made.get_object().get("/Kids") or [made]
        page.setdefault(NameObject("/Annots"), ArrayObject()).extend(widgets)  # type: ignore[attr-defined]
    writer._root_object[NameObject("/AcroForm")] = DictionaryObject(
        {
            NameObject("/Fields"): ArrayObject(refs),
            NameObject("/DA"): TextStringObject("/Helv 0 Tf 0 g"),
            NameObject("/DR"): resources,
        }
    )
    writer.add_metadata({"/Title": title.title(), "/Producer": "claims-crew samples"})
    return _bytes(writer)


def _field(writer: PdfWriter, field: Field, baseline: Mapping[str, float]) -> object:
    """The field's dictionary, added to the writer: a text box, a check box, or a radio group
    whose buttons sit beside its printed options."""
    common: dict[str, object] = {NameObject("/T"): TextStringObject(field.name)}
    if field.tooltip:
        common[NameObject("/TU")] = TextStringObject(field.tooltip)
    y = baseline[field.label]
    if field.kind == "text":
        widget = _widget((FIELD_X, y - 3, FIELD_RIGHT, y + 10))
        widget.update(common)
        widget[NameObject("/FT")] = NameObject("/Tx")
        widget[NameObject("/DA")] = TextStringObject("/Helv 8 Tf 0 g")
        return writer._add_object(widget)
    if field.kind == "check":
        widget = _button((FIELD_X, y - 1), "/Yes")
        widget.update(common)
        widget[NameObject("/FT")] = NameObject("/Btn")
        widget[NameObject("/V")] = NameObject("/Off")
        return writer._add_object(widget)
    group = DictionaryObject(common)
    group[NameObject("/FT")] = NameObject("/Btn")
    group[NameObject("/Ff")] = NumberObject(RADIO_FLAGS)
    group[NameObject("/V")] = NameObject("/Off")
    ref = writer._add_object(group)
    kids = []
    for option in field.options:
        kid = _button((FIELD_X, baseline[option] - 1), f"/{state_name(option)}")
        kid[NameObject("/Parent")] = ref
        kids.append(writer._add_object(kid))
    group[NameObject("/Kids")] = ArrayObject(kids)
    return ref


def state_name(option: str) -> str:
    """A printed option as its button's on-state name: "Escape of water" → "EscapeOfWater"."""
    return "".join(word[:1].upper() + word[1:] for word in option.split())


def _widget(rect: tuple[float, float, float, float]) -> DictionaryObject:
    return DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/Widget"),
            NameObject("/Rect"): ArrayObject(FloatObject(round(v, 2)) for v in rect),
            NameObject("/F"): NumberObject(4),  # printed
        }
    )


def _button(corner: tuple[float, float], on: str) -> DictionaryObject:
    """A square button with two appearances: `on` (a cross in the box) and /Off (the box)."""
    x, y = corner
    widget = _widget((x, y, x + BOX, y + BOX))
    box = b"0 G 0.8 w 0.5 0.5 9 9 re S"
    shown = {on: box + b" 2 2 m 8 8 l S 2 8 m 8 2 l S", "/Off": box}
    normal = DictionaryObject()
    for state, drawing in shown.items():
        stream = DecodedStreamObject()
        stream.set_data(drawing)
        stream[NameObject("/Type")] = NameObject("/XObject")
        stream[NameObject("/Subtype")] = NameObject("/Form")
        stream[NameObject("/BBox")] = ArrayObject(NumberObject(v) for v in (0, 0, BOX, BOX))
        normal[NameObject(state)] = stream
    widget[NameObject("/AP")] = DictionaryObject({NameObject("/N"): normal})
    widget[NameObject("/AS")] = NameObject("/Off")
    return widget


def fill(blank: bytes, values: Mapping[str, str]) -> bytes:
    """The form filled: text fields with their text, a check box with "/Yes", a radio group with
    "/" and its option's state_name; pypdf draws each value's appearance."""
    # pypdf logs that the copy has more objects than the blank's trailer counted: it adds the
    # appearance streams it draws; nothing is wrong.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(blank)))
    writer.update_page_form_field_values(writer.pages[0], dict(values), auto_regenerate=False)
    return _bytes(writer)


def flattened(pdf: bytes, dpi: int = SCAN_DPI) -> bytes:
    """The filled form's pages drawn with their fields (pdfium's form renderer), as an
    image-only PDF: no text layer and no form left, only the pixels a scanner would give."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        document.init_forms()
        images = [
            page.render(scale=dpi / 72, grayscale=True, may_draw_forms=True).to_pil().convert("L")
            for page in document
        ]
    finally:
        document.close()
    out = io.BytesIO()
    first: Image.Image = images[0]
    first.save(
        out,
        "PDF",
        resolution=dpi,
        save_all=True,
        append_images=images[1:],
        creationDate=FIXED_TIME,
        modDate=FIXED_TIME,
        title="Scanned form",
        producer="claims-crew samples",
    )
    return out.getvalue()


def _bytes(writer: PdfWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()

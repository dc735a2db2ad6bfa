"""A PDF's filled form fields as `Label: value` lines, page by page.

A loss notice or a body-shop estimate is often a fillable PDF: the insured's name, the date of
the loss and the amounts are the values of its AcroForm fields, not text on the page, so a text
layer holds only the printed labels. This module reads the values. It runs in the PDF reader
child (reader.py loads it by its path), so it imports only the standard library and pypdf.

- A field's label is its tooltip (/TU), the words a form shows a person, unless the tooltip is
  no label at all (a placeholder such as "undefined", a number such as "20", a lone short word
  such as "to"); then it is a readable form of the field's name: `Loss_IncidentDate_A` → "Loss
  incident date".
- A text or choice field gives its value (a rich-text field's value may be a stream: its text);
  a check box or radio group its chosen option (its export value or on-state name, made
  readable); an unchecked box and an empty field give none.
- A signature field gives facts, never bytes: "Signed: NAME, DATE" as far as its signature
  dictionary names the signer (/Name) and the time (/M), else "signature present"; the
  signature is not verified, and the line says so. No other dictionary is ever a value.
- A field is placed on the page its first widget sits on (page 1 when no page shows it).
- An XFA form's datasets (xfa.py) give their leaf elements' texts as lines on page 1, where no
  AcroForm field of the same name has a value; a datasets packet not read whole comes back as a
  note, which the record lists as a part not read.

Values are outside input: the number of fields is counted while the field tree is walked, and
the form refused past `max_fields` before any value is read; a value longer than `max_chars` is
cut there, and says so. A tree that loops or nests deeper than a real form is cut too.
"""

from __future__ import annotations

import datetime
import functools
import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from pypdf import PdfReader
from pypdf.errors import LimitReachedError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, StreamObject

# Real forms nest a few levels (form1 > Page1 > Section > field); a deeper tree is a trick.
MAX_FIELD_DEPTH = 32
# Field flag bit (PDF 32000-1, 12.7.4.2.1): a push button, which holds no value.
_PUSH_BUTTON = 1 << 16
_INDEX = re.compile(r"\[\d+\]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Tooltips that forms carry where their author set none: no label for a person.
_PLACEHOLDER_TOOLTIPS = frozenset({"undefined", "null", "none", "nil", "n/a", "tooltip"})
_LETTER_WORD = re.compile(r"[^\W\d_]+")
# A signer's name as a signature dictionary gives it: a person's or a company's name is short.
MAX_SIGNER_CHARS = 120
# A PDF date (PDF 32000-1, 7.9.4): D:YYYYMMDD and more, of which the day is kept.
_PDF_DATE = re.compile(r"(?:D:)?(\d{4})(\d{2})(\d{2})")
# Characters a value may keep: printable ones, and the line breaks of a multi-line field.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class FormTooLarge(Exception):
    """A form with more fields than the cap (or more filled text than the cap); the message
    says which for a person."""


class FormLines(NamedTuple):
    """Each page's `Label: value` lines, and the XFA datasets packets not read whole, as
    (decoded size, why) pairs."""

    pages: list[list[str]]
    unread: list[tuple[int, str]]


@functools.cache
def _xfa() -> ModuleType:
    """xfa.py, loaded by its path: this module also runs outside the package (see above)."""
    path = Path(__file__).with_name("xfa.py")
    spec = importlib.util.spec_from_file_location("claims_crew_pdf_xfa", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def readable(name: str, drop_suffix: bool = True) -> str:
    """A field's name as words: the last part of its full name, split at underscores and case
    changes, a trailing one-letter part (ACORD's `_A`, the form's copy) dropped, lower case
    after the first word except for acronyms: `Loss_IncidentDate_A` → "Loss incident date"."""
    last = _INDEX.sub("", name).rsplit(".", 1)[-1]
    parts = [p for p in re.split(r"[_\s]+", last) if p]
    if drop_suffix and len(parts) > 1 and len(parts[-1]) == 1 and parts[-1].isalpha():
        parts.pop()
    words = [w for part in parts for w in (_CAMEL.findall(part) or [part])]
    if not words:
        return last
    keep = [i == 0 or (w.isupper() and len(w) > 1) for i, w in enumerate(words)]
    text = " ".join(w if kept else w.lower() for w, kept in zip(words, keep, strict=True))
    return text[:1].upper() + text[1:]


def form_lines(reader: PdfReader, max_fields: int, max_chars: int, max_total: int) -> FormLines:
    """The filled fields of every page, as `Label: value` lines ([] per page without a form),
    and the XFA packets not read whole.

    Raises FormTooLarge past `max_fields` fields or `max_total` characters of lines, or past
    pypdf's own limits on what it parses (an array of over 100,000 fields is refused by pypdf
    before this module could count it).
    """
    try:
        return _form_lines(reader, max_fields, max_chars, max_total)
    except LimitReachedError as exc:
        # pypdf raises this for its size limits and for a loop it found; a loop is a broken
        # file, which the reader reports as such.
        if str(exc).startswith("Detected"):
            raise
        raise FormTooLarge(f"its form is larger than the PDF reader parses ({exc})") from exc


def _form_lines(reader: PdfReader, max_fields: int, max_chars: int, max_total: int) -> FormLines:
    pages: list[list[str]] = [[] for _ in reader.pages]
    form = _dict(reader.trailer["/Root"]).get("/AcroForm")
    form = form.get_object() if form is not None else None
    if not isinstance(form, DictionaryObject) or not pages:
        return FormLines(pages, [])
    where = _widget_pages(reader)
    filled: set[str] = set()
    for name, field in _terminal_fields(form.get("/Fields"), max_fields):
        value = _value(field)
        if value is None:
            continue
        filled.add(_INDEX.sub("", name).rsplit(".", 1)[-1])
        pages[_page_of(field, where)].append(f"{label(field, name)}: {_cut(value, max_chars)}")
    xfa = _xfa()
    try:
        read = xfa.xfa_values(form.get("/XFA"), max_fields)
    except xfa.XfaTooLarge as exc:
        raise FormTooLarge(str(exc)) from exc
    for tag, value in read.values:
        if tag not in filled:
            pages[0].append(f"{readable(tag)}: {_cut(value, max_chars)}")
    total = sum(len(line) for lines in pages for line in lines)
    if total > max_total:
        raise FormTooLarge(
            f"its form fields hold {total:,} characters; the cap is {max_total:,} characters"
        )
    return FormLines(pages, [(note.size, note.reason) for note in read.unread])


def label(field: DictionaryObject, name: str) -> str:
    """The field's tooltip when it is a label a person can read, else its name made readable."""
    tooltip = _printable(_text(_inherited(field, "/TU")) or "").strip()
    return tooltip if is_label(tooltip) else readable(name)


def is_label(tooltip: str) -> bool:
    """Whether a tooltip names its field: not empty, not a placeholder ("undefined", "null"),
    not a number ("20") and not one short lower-case word ("to"); "ID" or "Age" are labels."""
    words = _LETTER_WORD.findall(tooltip)
    if not words or tooltip.strip().lower() in _PLACEHOLDER_TOOLTIPS:
        return False
    return not (len(words) == 1 and len(words[0]) <= 2 and words[0].islower())


def _terminal_fields(fields: Any, max_fields: int) -> list[tuple[str, DictionaryObject]]:
    """(full name, field) for each field that holds a value, in the form's order; FormTooLarge
    when there are more than `max_fields`. Each object is visited once, so a loop ends."""
    found: list[tuple[str, DictionaryObject]] = []
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[Any, str, int]] = [(f, "", 0) for f in reversed(_array(fields))]
    while stack:
        entry, parent, depth = stack.pop()
        if isinstance(entry, IndirectObject):
            if (entry.idnum, entry.generation) in seen:
                continue
            seen.add((entry.idnum, entry.generation))
        field = entry.get_object()
        if not isinstance(field, DictionaryObject) or depth > MAX_FIELD_DEPTH:
            continue
        part = str(field.get("/T", ""))
        name = f"{parent}.{part}" if parent and part else parent or part
        kids = [k for k in _array(field.get("/Kids")) if "/T" in _dict(k)]
        if kids:  # a node of the tree: its kids are fields (widgets carry no /T)
            stack.extend((k, name, depth + 1) for k in reversed(kids))
            continue
        found.append((name, field))
        if len(found) > max_fields:
            raise FormTooLarge(f"its form has more than {max_fields:,} fields; that is the cap")
    return found


def _value(field: DictionaryObject) -> str | None:
    """What a filled field says; None for an empty field, an unchecked box or a push button."""
    kind = _inherited(field, "/FT")
    value = _inherited(field, "/V")
    if value is None:
        return None
    if kind == "/Sig" or (isinstance(value, DictionaryObject) and value.get("/Type") == "/Sig"):
        return signature(value)
    if kind == "/Btn":
        flags = int(_inherited(field, "/Ff") or 0)
        state = str(value).lstrip("/")
        if flags & _PUSH_BUTTON or state in ("", "Off"):
            return None
        return _option(field, state)
    if isinstance(value, ArrayObject):  # a list box with several chosen
        text = ", ".join(t for v in value if (t := _text(v.get_object())) and t.strip())
    else:
        text = _text(value) or ""
    return _printable(text).strip() or None


def signature(value: Any) -> str:
    """A signature field's value as facts: who signed and when, as its signature dictionary
    says (not verified), or "signature present". Its bytes (/Contents, /Cert) are never read."""
    sig = value if isinstance(value, DictionaryObject) else DictionaryObject()
    name = " ".join(_printable(_text(sig.get("/Name")) or "").split())[:MAX_SIGNER_CHARS]
    day = _pdf_day(_text(sig.get("/M")) or "")
    said = [part for part in (name, day) if part]
    if not said:
        return "signature present (not verified)"
    return f"Signed: {', '.join(said)} (not verified)"


def _pdf_day(text: str) -> str:
    """The day of a PDF date ("D:20260220101500+01'00'" → "2026-02-20"); "" when it is none."""
    found = _PDF_DATE.match(text.strip())
    if found is None:
        return ""
    try:
        return datetime.date(*(int(part) for part in found.groups())).isoformat()
    except ValueError:
        return ""


def _text(value: Any) -> str | None:
    """A value that is text: a string, or a text stream's decoded text (a rich-text field may
    hold one); None for anything else (a dictionary, a number, bytes), which is never a value."""
    value = value.get_object() if value is not None else None
    if isinstance(value, StreamObject):
        data = value.get_data()
        if data.startswith((b"\xfe\xff", b"\xff\xfe")):
            return data.decode("utf-16", "replace")
        return data.decode("utf-8", "replace")
    return str(value) if isinstance(value, str) else None


def _printable(text: str) -> str:
    """The text without control characters (line breaks and tabs kept)."""
    return _CONTROL.sub("", text)


def _option(field: DictionaryObject, state: str) -> str:
    """A button's chosen state as words: its export value from /Opt when the state is an index
    into it, else the state's name made readable ("WindHail" → "Wind hail", "Yes" → "Yes")."""
    options = _array(_inherited(field, "/Opt"))
    if state.isdigit() and int(state) < len(options):
        return str(options[int(state)].get_object())
    return readable(state, drop_suffix=False)


def _widget_pages(reader: PdfReader) -> dict[tuple[int, int], int]:
    """Each widget annotation's page, by its object's number, from the pages' /Annots."""
    where: dict[tuple[int, int], int] = {}
    for index, page in enumerate(reader.pages):
        for annot in _array(page.get("/Annots")):
            if isinstance(annot, IndirectObject):
                where.setdefault((annot.idnum, annot.generation), index)
    return where


def _page_of(field: DictionaryObject, where: dict[tuple[int, int], int]) -> int:
    """The page of the field's first widget found on a page: the field itself or a kid."""
    widgets = [field.indirect_reference, *_array(field.get("/Kids"))]
    for widget in widgets:
        if isinstance(widget, IndirectObject):
            page = where.get((widget.idnum, widget.generation))
            if page is not None:
                return page
    return 0


def _cut(value: str, max_chars: int) -> str:
    """The value, or its first `max_chars` characters and a note that the rest was left out."""
    # A multi-line field ends its lines with CR, as PDF text fields do; they become newlines.
    value = "\n".join(" ".join(line.split()) for line in value.splitlines() if line.strip())
    if len(value) <= max_chars:
        return value
    return f"{value[:max_chars]} [… cut at {max_chars:,} characters]"


def _inherited(field: DictionaryObject, key: str) -> Any:
    """A field's entry, or its nearest ancestor's (/FT, /V, /Ff and /Opt are inherited)."""
    node: Any = field
    for _ in range(MAX_FIELD_DEPTH + 1):
        if not isinstance(node, DictionaryObject):
            return None
        if key in node:
            return node[key].get_object()
        node = node.get("/Parent")
        node = node.get_object() if node is not None else None
    return None


def _array(value: Any) -> list[Any]:
    value = value.get_object() if value is not None else None
    return list(value) if isinstance(value, ArrayObject) else []


def _dict(value: Any) -> DictionaryObject:
    value = value.get_object() if value is not None else None
    return value if isinstance(value, DictionaryObject) else DictionaryObject()

"""A PDF's filled form fields as `Label: value` lines, page by page.

A loss notice or a body-shop estimate is often a fillable PDF: the insured's name, the date of
the loss and the amounts are the values of its AcroForm fields, not text on the page, so a text
layer holds only the printed labels. This module reads the values. It runs in the PDF reader
child (reader.py loads it by its path), so it imports only the standard library and pypdf.

- A field's label is its tooltip (/TU), the words a form shows a person, else a readable form of
  its name: `Loss_IncidentDate_A` → "Loss incident date".
- A text or choice field gives its value; a check box or radio group its chosen option (its
  export value or on-state name, made readable); an unchecked box and an empty field give none.
- A field is placed on the page its first widget sits on (page 1 when no page shows it).
- An XFA form's datasets (the filled values of a form drawn from XML) give their leaf elements'
  texts as lines on page 1, where no AcroForm field of the same name has a value.

Values are outside input: the number of fields is counted while the field tree is walked, and
the form refused past `max_fields` before any value is read; a value longer than `max_chars` is
cut there, and says so. A tree that loops or nests deeper than a real form is cut too.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree

from pypdf import PdfReader
from pypdf.errors import LimitReachedError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

# Real forms nest a few levels (form1 > Page1 > Section > field); a deeper tree is a trick.
MAX_FIELD_DEPTH = 32
# Field flag bit (PDF 32000-1, 12.7.4.2.1): a push button, which holds no value.
_PUSH_BUTTON = 1 << 16
_INDEX = re.compile(r"\[\d+\]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_XFA_DATA = "{http://www.xfa.org/schema/xfa-data/1.0/}data"


class FormTooLarge(Exception):
    """A form with more fields than the cap (or more filled text than the cap); the message
    says which for a person."""


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


def form_lines(
    reader: PdfReader, max_fields: int, max_chars: int, max_total: int
) -> list[list[str]]:
    """The filled fields of every page, as `Label: value` lines; [] per page without a form.

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


def _form_lines(
    reader: PdfReader, max_fields: int, max_chars: int, max_total: int
) -> list[list[str]]:
    pages: list[list[str]] = [[] for _ in reader.pages]
    form = _dict(reader.trailer["/Root"]).get("/AcroForm")
    form = form.get_object() if form is not None else None
    if not isinstance(form, DictionaryObject) or not pages:
        return pages
    where = _widget_pages(reader)
    filled: set[str] = set()
    for name, field in _terminal_fields(form.get("/Fields"), max_fields):
        value = _value(field)
        if value is None:
            continue
        filled.add(_INDEX.sub("", name).rsplit(".", 1)[-1])
        label = str(_inherited(field, "/TU") or "").strip() or readable(name)
        pages[_page_of(field, where)].append(f"{label}: {_cut(value, max_chars)}")
    for tag, value in _xfa_values(form.get("/XFA"), max_fields):
        if tag not in filled:
            pages[0].append(f"{readable(tag)}: {_cut(value, max_chars)}")
    total = sum(len(line) for lines in pages for line in lines)
    if total > max_total:
        raise FormTooLarge(
            f"its form fields hold {total:,} characters; the cap is {max_total:,} characters"
        )
    return pages


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
    if kind == "/Btn":
        flags = int(_inherited(field, "/Ff") or 0)
        state = str(value).lstrip("/")
        if flags & _PUSH_BUTTON or state in ("", "Off"):
            return None
        return _option(field, state)
    if isinstance(value, ArrayObject):  # a list box with several chosen
        text = ", ".join(str(v) for v in value if str(v).strip())
    else:
        text = str(value)
    return text.strip() or None


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


def _xfa_values(xfa: Any, max_fields: int) -> list[tuple[str, str]]:
    """(element name, text) of each filled leaf of an XFA form's datasets; [] without one.

    A document type declaration is refused outright (it is how entity expansion bombs come), and
    the leaves count against the same cap as the AcroForm's fields.
    """
    xfa = xfa.get_object() if xfa is not None else None
    if isinstance(xfa, ArrayObject):  # [name, stream, name, stream, …]: the datasets packet
        packets = list(zip(xfa[::2], xfa[1::2], strict=False))
        streams = [s.get_object() for n, s in packets if str(n) == "datasets"]
    else:
        streams = [xfa] if xfa is not None else []
    values: list[tuple[str, str]] = []
    for stream in streams:
        data = stream.get_data() if hasattr(stream, "get_data") else b""
        if b"<!DOCTYPE" in data.upper() or b"<!ENTITY" in data.upper():
            continue
        try:
            root = ElementTree.fromstring(data)
        except ElementTree.ParseError:
            continue
        found = root if root.tag == _XFA_DATA else root.find(f".//{_XFA_DATA}")
        for element in found.iter() if found is not None else ():
            if len(element) == 0 and element.text and element.text.strip():
                values.append((element.tag.rsplit("}", 1)[-1], element.text.strip()))
                if len(values) > max_fields:
                    raise FormTooLarge(
                        f"its XFA form has more than {max_fields:,} filled values; that is the cap"
                    )
    return values


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

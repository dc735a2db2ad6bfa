"""Make the sample claims' PDF and picture attachments in ``claims/inbox/``, reproducibly.

No one's real document is in the repository: every attachment is typeset here from the text
below with the sample policies' own PDF writer (``build_policies.build_pdf``), then, for the
scanned and photographed ones, rendered to pixels with pdfium and saved with Pillow:

* ``C-1049-plumber.pdf``: a two-page plumber's report with a text layer (merged with pypdf);
  only its second page says when the damage started.
* ``C-1050-police-report.pdf``: a police report, rendered at 300 dpi and wrapped as an
  image-only PDF, as a scanner makes it: no text layer, so it is read by OCR.
* ``C-2002-estimate.jpg``: a repair estimate, rendered, turned a little and photographed on a
  grey desk (a JPEG), read by OCR too.
* ``C-2003-statement.docx``: the insured's statement, a Word file written with python-docx, with
  a table of costs; its dates and its zip's are fixed, so the bytes are stable.
* ``C-2004-estimate.heic``: a windscreen estimate photographed as C-2002's is, saved as HEIC
  (an iPhone's default) with pillow-heif.
* ``C-1052-email.eml``: the insured's e-mail (a quoted-printable text body with an HTML
  alternative) carrying a plumber's two-page PDF report, made with the standard library's
  ``email`` package; its date, Message-ID and MIME boundaries are fixed, so its bytes are too.
* ``C-1051-loss-notice.pdf``: a property loss notice, a fillable form (scripts/sample_forms.py:
  field names in ACORD's style, no ACORD form included) filled with pypdf; its printed labels
  are its text layer, the date, cause and description of the loss are only in its fields.

Usage (from the repository root)::

    python scripts/make_attachment_samples.py          # write them
    python scripts/make_attachment_samples.py --check  # exit 1 if any differs (for CI)
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import io
import sys
import zipfile
from collections.abc import Callable, Sequence
from email import policy
from email.message import EmailMessage
from pathlib import Path
from types import ModuleType

import docx
import pillow_heif
import pypdfium2
from PIL import Image, ImageFilter, ImageOps
from pypdf import PdfReader, PdfWriter

ROOT = Path(__file__).resolve().parent.parent
INBOX = ROOT / "claims" / "inbox"
SCAN_DPI = 300
PHOTO_DPI = 200
# Pillow's PDF writer stamps the time unless told: a fixed moment keeps the bytes stable.
FIXED_TIME = "D:20260101000000Z"
FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)

PLUMBER_PAGE_1 = """\
Kestrel Plumbing & Heating Ltd - Call-out report
# Job
Job number KP-22817. Attended 17 January 2026 at 14 Wharf Lane, Bristol, for Ms Amara Okafor.
Reported: water coming through the living room ceiling below the bathroom.
# Works carried out
Isolated the cold supply at the stopcock and drained down the system.
Lifted two floorboards in the bathroom to reach the pipe run under the bath.
Cut out and replaced 60 cm of 15 mm copper pipe; new compression couplings fitted.
Refilled, bled and pressure-tested the system; no further leaks found.
Labour 3 hours, parts and call-out charge as on the invoice.
"""

PLUMBER_PAGE_2 = """\
Kestrel Plumbing & Heating Ltd - Findings
# Cause
The 15 mm cold feed under the bath had split along a seam where it was clipped too tightly to a
joist. The split was fresh and the insulation around it was dry a few centimetres away.
# When the damage started
The damage started on 16 January 2026, when the pipe split overnight during the frost.
The ceiling below was dry until that evening, and the joists show no older staining.
# Engineer
R. Haldane, Gas Safe 558201. Report written 17 January 2026.
"""

HOSE_PAGE_1 = """\
Brook Lane Plumbing - Call-out report
# Job
Job number BL-4410. Attended 9 February 2026 at 27 Elm Grove, Leeds, for Ms Priya Raman.
Reported: water across the kitchen floor from under the sink.
# Works carried out
Isolated the supply to the dishwasher and removed the split hose.
Fitted a new 1.5 m braided dishwasher hose and a new isolating valve.
Ran the dishwasher through a full cycle; no further leaks found.
Labour 1.5 hours, parts and call-out charge as on the invoice.
"""

HOSE_PAGE_2 = """\
Brook Lane Plumbing - Findings
# Cause
The rubber hose feeding the dishwasher had split at its crimped end, where it was bent hard
against the back of the unit. It was the hose fitted with the dishwasher in 2019.
# When the damage started
The damage started on 9 February 2026, when the hose split early that morning.
The floor under the units was dry at the edges and shows no older staining.
# Engineer
T. Okonedo. Report written 9 February 2026.
"""

# The insured's e-mail, a paragraph a line: quoted-printable breaks the long lines softly.
HOSE_EMAIL = """\
Dear claims team,

On the morning of 9 February 2026 I found water across the kitchen floor: the flexible hose \
feeding the dishwasher had split under the sink. The water soaked into the floor and the base \
units before I could turn it off at the stopcock.

Our plumber, Brook Lane Plumbing, replaced the hose the same day; his report is attached. The \
repairs to the floor and the units are quoted at £1,850.

Kind regards,
Priya Raman
Policy HM-HOME-001
"""

POLICE_REPORT = """\
Avon and Somerset Constabulary - Crime report
# Reference
Crime reference 5520/26. Reported 2 February 2026 at 08:10 by Mr Daniel Mercer.
# Offence
Burglary, dwelling. 9 Orchard Close, Bath.
# Officer's account
Between 22:00 on 1 February 2026 and 07:30 on 2 February 2026 the offenders forced the
kitchen window with a tool, breaking the lock, and entered the house.
A bicycle, a camera and a laptop were taken. Tool marks photographed on the window frame.
The householder was at home asleep and heard nothing.
# Officer
PC 3391 J. Whitlock.
"""

REPAIR_ESTIMATE = """\
Northgate Auto Body - Repair estimate
# Vehicle
2019 Mazda CX-5, plate NGX 4471. Customer: Ruth Adeyemi. Estimate date 20 January 2026.
# Damage
Rear bumper cover cracked and tailgate dented after another car ran into the back of the
vehicle at a red light on 18 January 2026.
# Estimate
Rear bumper cover, replace: 640.00
Tailgate, repair and refinish: 910.00
Parking sensor, replace: 210.00
Labour, 6.5 hours: 520.00
Estimate total: 2,280.00
"""

STATEMENT = [
    "Statement of the insured",
    "Insured: Marcus Bell. Policy MR-AUTO-001. Vehicle: 2021 Toyota Corolla, plate KLM 2093.",
    "On 9 February 2026 at about 17:40 I was driving slowly through the car park of Fairview "
    "Retail Park when a white van reversed out of a bay into the front passenger door of my car.",
    "The van driver, Mr Colin Price, stopped, said the accident was his fault and gave me his "
    "insurance details. Two shoppers saw it happen and gave me their names.",
    "The body shop's quote for the repair:",
]
STATEMENT_COSTS = [
    ("Item", "Cost (USD)"),
    ("Front passenger door, repair and refinish", "1,150.00"),
    ("Door mirror, replace", "240.00"),
    ("Labour, 4 hours", "320.00"),
    ("Total", "1,710.00"),
]
STATEMENT_END = "I confirm that this statement is true to the best of my knowledge. Marcus Bell."

WINDSCREEN_ESTIMATE = """\
Harbour Road Glass - Repair estimate
# Vehicle
2020 Skoda Octavia estate, plate HRB 5120. Customer: Priya Raman. Estimate date 26 February 2026.
# Damage
Windscreen cracked across the driver's side by a stone thrown up from a gravel lorry on the
A38 on 24 February 2026. The crack is 40 cm long and cannot be repaired.
# Estimate
Windscreen, replace: 690.00
Rain sensor, recalibrate: 120.00
Labour, 2 hours: 160.00
Estimate total: 970.00
"""


# C-1051's loss notice as the insured filled it in; the phone box and "reported to police" are
# left empty, so they are not part of its text of record.
LOSS_NOTICE_VALUES = {
    "Policy_PolicyNumberIdentifier_A": "HM-HOME-001",
    "NamedInsured_FullName_A": "Priya Raman",
    "NamedInsured_MailingAddress_A": "27 Heron Row, Cardiff CF11 6QT",
    "Loss_IncidentDate_A": "14/02/2026",
    "Loss_LocationAddress_A": "27 Heron Row, Cardiff CF11 6QT",
    "Loss_CauseOfLoss_A": "/Storm",
    "Loss_LossDescription_A": (
        "Gusts of 70 mph in the night tore tiles off the roof and rain came through the "
        "bedroom ceiling."
    ),
    "Loss_RoofDamageIndicator_A": "/Yes",
    "Loss_EstimatedAmount_A": "4,850.00",
}


def _build_pdf() -> Callable[[str], bytes]:
    """build_policies.build_pdf, the writer the sample policies are made with."""
    build: Callable[[str], bytes] = _script("build_policies").build_pdf
    return build


def _script(name: str) -> ModuleType:
    """A script beside this one, imported as a module."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def loss_notice() -> bytes:
    """C-1051's property loss notice, filled."""
    forms, policies = _script("sample_forms"), _script("build_policies")
    blank = forms.blank_form(
        policies.build_pdf, policies.layout, forms.LOSS_NOTICE_TITLE, forms.LOSS_NOTICE
    )
    filled: bytes = forms.fill(blank, LOSS_NOTICE_VALUES)
    return filled


def _render(pdf: bytes, dpi: int) -> Image.Image:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return document[0].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
    finally:
        document.close()


def plumber_report(
    build: Callable[[str], bytes],
    pages: Sequence[str] = (PLUMBER_PAGE_1, PLUMBER_PAGE_2),
    title: str = "Call-out report KP-22817",
) -> bytes:
    writer = PdfWriter()
    for text in pages:
        writer.append(PdfReader(io.BytesIO(build(text))))
    writer.add_metadata({"/Title": title, "/Producer": "claims-crew samples"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def scanned(build: Callable[[str], bytes], text: str) -> bytes:
    """A text page as a scanner returns it: pixels only, slightly soft, in an image-only PDF."""
    page = _render(build(text), SCAN_DPI).filter(ImageFilter.GaussianBlur(0.6))
    out = io.BytesIO()
    page.save(
        out,
        "PDF",
        resolution=SCAN_DPI,
        creationDate=FIXED_TIME,
        modDate=FIXED_TIME,
        title="Scanned document",
        producer="claims-crew samples",
    )
    return out.getvalue()


def _photo(build: Callable[[str], bytes], text: str) -> Image.Image:
    """A text page as a phone photographs it on a desk: cropped to the text, turned a degree
    and a half, on a grey ground, a little soft."""
    page = _render(build(text), PHOTO_DPI)
    page = page.crop((0, 0, page.width, page.height // 2))
    page = ImageOps.expand(page, border=40, fill=255)
    turned = page.rotate(1.5, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=128)
    return turned.filter(ImageFilter.GaussianBlur(0.8)).convert("RGB")


def photographed(build: Callable[[str], bytes], text: str) -> bytes:
    """The photo saved as a JPEG."""
    out = io.BytesIO()
    _photo(build, text).save(out, "JPEG", quality=88, optimize=False, progressive=False)
    return out.getvalue()


def photographed_heic(build: Callable[[str], bytes], text: str) -> bytes:
    """The photo saved as an iPhone saves it: HEIC (HEVC in a HEIF file)."""
    out = io.BytesIO()
    pillow_heif.from_pillow(_photo(build, text)).save(out, quality=85)
    return out.getvalue()


def stable_zip(data: bytes) -> bytes:
    """The zip's parts in the same order, each dated FIXED_DATE: a zip writer stamps each part
    with the moment it wrote it. Deflated at a fixed level, as the PNG inside the scanned PDF
    is, by the zlib this Python carries."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            part = zipfile.ZipInfo(info.filename, date_time=FIXED_DATE.timetuple()[:6])
            part.external_attr = 0o644 << 16
            target.writestr(part, source.read(info), zipfile.ZIP_DEFLATED, compresslevel=9)
    return out.getvalue()


def word_statement() -> bytes:
    """The insured's statement as a Word file: paragraphs, then a table of costs."""
    document = docx.Document()
    document.add_heading(STATEMENT[0], level=1)
    for text in STATEMENT[1:]:
        document.add_paragraph(text)
    table = document.add_table(rows=0, cols=2)
    for item, cost in STATEMENT_COSTS:
        row = table.add_row().cells
        row[0].text, row[1].text = item, cost
    document.add_paragraph(STATEMENT_END)
    properties = document.core_properties
    properties.author = properties.last_modified_by = "Marcus Bell"
    properties.title = STATEMENT[0]
    properties.created = properties.modified = FIXED_DATE.replace(tzinfo=None)
    properties.revision = 1
    out = io.BytesIO()
    document.save(out)
    return stable_zip(out.getvalue())


def hose_email(report: bytes) -> bytes:
    """The insured's e-mail: a text body and its HTML alternative, the report attached."""
    message = EmailMessage(policy=policy.default)
    message["From"] = "Priya Raman <priya.raman@example.org>"
    message["To"] = "Harbour Mutual claims <claims@harbour-mutual.example>"
    message["Date"] = "Tue, 10 Feb 2026 08:42:00 +0000"
    message["Subject"] = "Water damage in the kitchen, policy HM-HOME-001"
    message["Message-ID"] = "<c1052.20260210084200@example.org>"
    message.set_content(HOSE_EMAIL, cte="quoted-printable")
    paragraphs = "".join(f"<p>{p.replace(chr(10), '<br>')}</p>\n" for p in HOSE_EMAIL.split("\n\n"))
    message.add_alternative(f"<html><body>\n{paragraphs}</body></html>\n", subtype="html")
    message.add_attachment(
        report, maintype="application", subtype="pdf", filename="BL-4410-report.pdf"
    )
    # Boundaries are random unless set: fixed ones keep the bytes stable.
    message.set_boundary("=_claims-crew-C-1052-mixed")
    alternative = next(message.iter_parts())
    alternative.set_boundary("=_claims-crew-C-1052-alternative")
    return message.as_bytes()


def samples() -> dict[str, bytes]:
    build = _build_pdf()
    return {
        "C-1049-plumber.pdf": plumber_report(build),
        "C-1050-police-report.pdf": scanned(build, POLICE_REPORT),
        "C-2002-estimate.jpg": photographed(build, REPAIR_ESTIMATE),
        "C-2003-statement.docx": word_statement(),
        "C-2004-estimate.heic": photographed_heic(build, WINDSCREEN_ESTIMATE),
        "C-1052-email.eml": hose_email(
            plumber_report(build, (HOSE_PAGE_1, HOSE_PAGE_2), "Call-out report BL-4410")
        ),
        "C-1051-loss-notice.pdf": loss_notice(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a sample is stale")
    args = parser.parse_args(argv)
    stale = []
    for name, data in samples().items():
        path = INBOX / name
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
            print(f"wrote {path.relative_to(ROOT)} ({len(data):,} bytes)")
    if stale:
        print(f"stale: {', '.join(stale)}; run scripts/make_attachment_samples.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

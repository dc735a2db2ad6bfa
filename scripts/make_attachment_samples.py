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
* ``C-1051-loss-notice.pdf``: a property loss notice, a fillable form (scripts/sample_forms.py:
  field names in ACORD's style, no ACORD form included) filled with pypdf; its printed labels
  are its text layer, the date, cause and description of the loss are only in its fields.

Usage (from the repository root)::

    python scripts/make_attachment_samples.py          # write them
    python scripts/make_attachment_samples.py --check  # exit 1 if any differs (for CI)
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import pypdfium2
from PIL import Image, ImageFilter, ImageOps
from pypdf import PdfReader, PdfWriter

ROOT = Path(__file__).resolve().parent.parent
INBOX = ROOT / "claims" / "inbox"
SCAN_DPI = 300
PHOTO_DPI = 200
# Pillow's PDF writer stamps the time unless told: a fixed moment keeps the bytes stable.
FIXED_TIME = "D:20260101000000Z"

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


def plumber_report(build: Callable[[str], bytes]) -> bytes:
    writer = PdfWriter()
    for text in (PLUMBER_PAGE_1, PLUMBER_PAGE_2):
        writer.append(PdfReader(io.BytesIO(build(text))))
    writer.add_metadata({"/Title": "Call-out report KP-22817", "/Producer": "claims-crew samples"})
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


def photographed(build: Callable[[str], bytes], text: str) -> bytes:
    """A text page as a phone photographs it on a desk: cropped to the text, turned a degree
    and a half, on a grey ground, a little soft, saved as a JPEG."""
    page = _render(build(text), PHOTO_DPI)
    page = page.crop((0, 0, page.width, page.height // 2))
    page = ImageOps.expand(page, border=40, fill=255)
    turned = page.rotate(1.5, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=128)
    turned = turned.filter(ImageFilter.GaussianBlur(0.8))
    out = io.BytesIO()
    turned.convert("RGB").save(out, "JPEG", quality=88, optimize=False, progressive=False)
    return out.getvalue()


def samples() -> dict[str, bytes]:
    build = _build_pdf()
    return {
        "C-1049-plumber.pdf": plumber_report(build),
        "C-1050-police-report.pdf": scanned(build, POLICE_REPORT),
        "C-2002-estimate.jpg": photographed(build, REPAIR_ESTIMATE),
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

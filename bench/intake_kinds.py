"""Benchmark: what reading each kind of claim attachment costs at intake, against a PDF report.

For the sample attachments in `claims/inbox/` it reads each file through the same entry point
intake uses (`documents.read.read_document`, with a fresh claim budget), interleaved per round
so that a noisy shared machine hits every kind alike, and prints each kind's median seconds and
its ratio to the two-page plumber's report (C-1049-plumber.pdf, a PDF with a text layer read by
the reader child), measured in the same run:

- the filled loss notice (C-1051): the PDF reader's child, its form fields read too;
- the e-mail (C-1052): its parse and body, then the PDF it carries through the reader child;
- the Word statement (C-2003): the Office reader's child;
- the HEIC photo (C-2004) and the JPEG photo (C-2002): decoded, then OCR (skipped with a note
  where Tesseract is absent);
- and three bombs refused: an e-mail nested 40 deep, a zip bomb dressed as .docx, a form with
  1,001 fields, each refused before anything large is decoded.

Run it from the project root:

    uv run python bench/intake_kinds.py
    uv run python bench/intake_kinds.py --repeats 9
    uv run python bench/intake_kinds.py --small    # one round: CI's check
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import zipfile
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from claims_crew.documents.images.ocr import ocr_unavailable  # noqa: E402
from claims_crew.documents.limits import MAX_FORM_FIELDS, AttachmentError, ClaimBudget  # noqa: E402
from claims_crew.documents.read import read_document  # noqa: E402
from tests.support.forms import text_fields_pdf  # noqa: E402

INBOX = ROOT / "claims" / "inbox"
BASELINE = "C-1049-plumber.pdf"
SAMPLES = {
    "PDF report (baseline)": BASELINE,
    "filled loss notice": "C-1051-loss-notice.pdf",
    "e-mail carrying a PDF": "C-1052-email.eml",
    "Word statement": "C-2003-statement.docx",
}
PHOTOS = {"JPEG photo (OCR)": "C-2002-estimate.jpg", "HEIC photo (OCR)": "C-2004-estimate.heic"}


def nested_email(depth: int) -> bytes:
    """An e-mail forwarding an e-mail, `depth` deep."""
    inner = b"From: a@example.org\r\nTo: b@example.org\r\nSubject: x\r\n\r\nbody\r\n"
    for level in range(depth):
        message = EmailMessage()
        message["From"], message["To"] = "a@example.org", "b@example.org"
        message["Subject"] = f"Fwd {level}"
        message.set_content("see attached")
        message.add_attachment(inner, maintype="message", subtype="rfc822")
        inner = message.as_bytes()
    return inner


def docx_bomb() -> bytes:
    """A zip whose word/document.xml inflates 1,000 times: 64 MiB of spaces from about 64 kB."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b" " * (64 << 20))
    return out.getvalue()


def bombs() -> dict[str, tuple[str, bytes]]:
    fields = {f"Field{n}": "" for n in range(MAX_FORM_FIELDS + 1)}
    return {
        "e-mail nested 40 deep (refused)": ("deep.eml", nested_email(40)),
        "zip bomb as .docx (refused)": ("bomb.docx", docx_bomb()),
        f"form of {MAX_FORM_FIELDS + 1:,} fields (refused)": ("form.pdf", text_fields_pdf(fields)),
    }


def read_once(name: str, data: bytes) -> tuple[float, str | None]:
    """Seconds to read (or refuse) the file, and the refusal's code if it was refused."""
    started = time.perf_counter()
    try:
        read_document(name, data, ClaimBudget())
    except AttachmentError as exc:
        return time.perf_counter() - started, exc.code
    return time.perf_counter() - started, None


def measure(files: dict[str, tuple[str, bytes]], repeats: int) -> dict[str, float]:
    """Median seconds per kind, the kinds interleaved within each round. Exits 1 when a sample
    is refused or a bomb is read: what is timed must be what intake does."""
    times: dict[str, list[float]] = {label: [] for label in files}
    for label, (name, data) in files.items():  # a warm-up each: children started, imports done
        _, code = read_once(name, data)
        if (code is not None) != label.endswith("(refused)"):
            raise SystemExit(f"{name}: expected {'a refusal' if code is None else 'a read'}")
    for _ in range(repeats):
        for label, (name, data) in files.items():
            times[label].append(read_once(name, data)[0])
    return {label: statistics.median(seconds) for label, seconds in times.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--small", action="store_true", help="one round, for CI")
    args = parser.parse_args(argv)
    repeats = 1 if args.small else args.repeats
    labels: dict[str, str] = dict(SAMPLES)
    if install := ocr_unavailable():
        print(f"photos skipped: no OCR engine ({install})")
    else:
        labels.update(PHOTOS)
    files = {label: (name, (INBOX / name).read_bytes()) for label, name in labels.items()}
    files.update(bombs())
    medians = measure(files, repeats)
    base = medians["PDF report (baseline)"]
    print(f"median of {repeats} round(s), interleaved; ratio to {BASELINE} in this run")
    for label, seconds in medians.items():
        print(f"  {label:<34} {seconds * 1000:9.1f} ms  {seconds / base:6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

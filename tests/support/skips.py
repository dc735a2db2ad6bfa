"""Why tests were skipped, in one line, for the end of a pytest run.

A fresh clone outside this project's setup has no ../shared/policies/ (the real policy PDFs,
which the project may not ship), and may lack Chromium or PostgreSQL. The tests that need them
skip, each with its reason; pytest lists those reasons, and this line says which of the skips are
the expected ones (docs/development.md, "Tests that skip").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pytest

# A fragment of a skip reason (lower case) → what the machine lacks.
CAUSES: dict[str, str] = {
    "../shared/policies": "../shared/policies/ (the real policy PDFs; see its README.md)",
    "../shared/corpus": "../shared/corpus/ (the real mail, forms, Office files and images)",
    "chromium": "Chromium (apt-get install chromium chromium-driver)",
    "postgresql": "PostgreSQL (apt-get install postgresql)",
    "tesseract": "Tesseract (apt-get install tesseract-ocr)",
}


def reason_of(report: pytest.TestReport) -> str:
    """The reason a skipped test gave."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # (file, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def cause_of(reason: str) -> str | None:
    lowered = reason.lower()
    return next((cause for fragment, cause in CAUSES.items() if fragment in lowered), None)


def skip_summary(reasons: Iterable[str]) -> str | None:
    """One line: how many tests skipped for want of each expected thing, and any others."""
    counts = Counter(cause_of(reason) for reason in reasons)
    if not counts:
        return None
    parts = [f"{n} without {cause}" for cause, n in counts.most_common() if cause is not None]
    line = f"{counts.total()} skipped: " + "; ".join(parts)
    if parts:
        line += ". These skips are expected where those are absent (docs/development.md)"
    if counts[None]:
        line += f"{'. ' if parts else ''}{counts[None]} for other reasons, listed above"
    return line + "."

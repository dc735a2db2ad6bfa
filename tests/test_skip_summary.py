"""The line at the end of a run that says which skips are expected (tests/support/skips.py)."""

from __future__ import annotations

from tests.support.paths import SHARED_POLICIES, absent
from tests.support.postgres import NOT_INSTALLED
from tests.support.skips import skip_summary

NO_PDF = absent(SHARED_POLICIES / "barclays_travel_uk.pdf")
NO_CHROMIUM = (
    "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"
)


def test_skips_are_counted_by_what_the_machine_lacks() -> None:
    line = skip_summary([NO_PDF, NO_PDF, NO_CHROMIUM, NOT_INSTALLED, NO_PDF])
    assert line is not None
    assert line.startswith("5 skipped: 3 without ../shared/policies/ (the real policy PDFs")
    assert "1 without Chromium" in line and "1 without PostgreSQL" in line
    assert "expected where those are absent (docs/development.md)" in line
    assert "other reasons" not in line


def test_a_skip_for_another_reason_is_not_called_expected() -> None:
    assert skip_summary(["no os.fork on this platform"]) == (
        "1 skipped: 1 for other reasons, listed above."
    )
    mixed = skip_summary([NO_PDF, "no os.fork on this platform"])
    assert mixed is not None and mixed.endswith(". 1 for other reasons, listed above.")


def test_no_skips_no_line() -> None:
    assert skip_summary([]) is None

"""The report's bar charts keep every label and figure inside the chart, whatever their length:
each text drawn is measured in DejaVu Sans, Linux's usual system font and among the widest, at
the charts' size, and must end within the SVG's viewBox (the page clips what lies past it)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import ImageFont

from claims_crew.report import build_report
from claims_crew.report.charts import FONT_PX
from claims_crew.report.html import render
from tests.support.report import hostile_row

DEJAVU_SANS = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
# Each chart: its viewBox's width and height, its name, and what it draws.
SVG = re.compile(
    r'<svg [^>]*viewBox="0 0 (\d+) (\d+)"[^>]*aria-label="([^"]*)"[^>]*>(.*?)</svg>', re.S
)
# A text drawn from its start (the bar charts' labels and figures): where it starts, and what.
START_TEXT = re.compile(r'<text x="([\d.]+)" y="[\d.]+"(?: [a-z-]+="[^"]*")*>([^<]*)</text>')


@pytest.mark.skipif(not DEJAVU_SANS.exists(), reason="needs DejaVu Sans (fonts-dejavu-core)")
@pytest.mark.parametrize("escalated", [8, 1234])
def test_every_bar_label_and_figure_ends_inside_its_chart(escalated: int) -> None:
    """ESCALATED as the longest bar (every claim but one), with counts from one digit to many,
    and a reason code far longer than any the rules give today."""
    long_code = "policy_not_found_in_the_library_under_any_number_the_claim_gives"
    rows = [
        replace(hostile_row(), claim_id=f"C-{i}", reason_codes=(long_code,))
        for i in range(escalated)
    ]
    page = render(
        build_report([*rows, replace(hostile_row(), outcome="ADJUDICATED")]),
        "http://review.example:8000",
    )
    font = ImageFont.truetype(str(DEJAVU_SANS), FONT_PX)
    charts = {label: (int(w), body) for w, _h, label, body in SVG.findall(page)}
    assert {"Outcomes", "Escalated, by reason code"} <= set(charts)
    for name in ("Outcomes", "Escalated, by reason code"):
        width, body = charts[name]
        texts = START_TEXT.findall(body)
        for x, text in texts:
            shown = text.replace("&amp;", "&")
            end = float(x) + font.getlength(shown)
            assert end <= width, f"{name}: {shown!r} ends at {end:.0f}, past {width}"
    outcomes = [t for _x, t in START_TEXT.findall(charts["Outcomes"][1])]
    assert "ESCALATED" in outcomes and f"({escalated})" in " ".join(outcomes)
    assert long_code in charts["Escalated, by reason code"][1]

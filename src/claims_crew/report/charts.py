"""The page's charts laid out: where each bar, label and ring goes, in SVG user units.

The arithmetic is here and the markup is in templates/charts.html, which draws these shapes as
inline SVG (nothing to fetch). Bars run from 0 to 100%; a missing figure draws as 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from claims_crew.report.metrics import Metric
from claims_crew.report.tables import pct

COLOURS = ("#3b6fd1", "#e0823d", "#3a9e6e", "#b4463f", "#7d5bbf")
# The charts' text size (`svg text` in report.css), in SVG units.
FONT_PX = 12
# Each character's width as a share of the font size, taken on the wide side: the page draws
# in the reader's system font, and DejaVu Sans, Linux's usual one, is among the widest. Its
# capitals are 0.79 at most but for "M" and "W" (0.86, 0.99), its other letters and digits 0.64
# but for "m" (0.97), and a few signs 0.84 to 1.0. A label measured too narrow is cut at the
# chart's edge; one measured too wide only leaves space.
WIDEST = frozenset("MWmw%@#+<=>^~")
PAD = 10
MIN_BAR_W = 160


def text_width(text: str, size: float = FONT_PX) -> float:
    """How wide `text` may be drawn, at most, in SVG units."""
    em = sum(1.0 if c in WIDEST else 0.8 if c.isupper() else 0.68 for c in text)
    return em * size


@dataclass(frozen=True)
class HBar:
    """One row of a horizontal bar chart: its label, and its bar's length along the track."""

    y: int
    label: str
    length: float
    title: str
    value: str


@dataclass(frozen=True)
class HBarChart:
    title: str
    width: int
    height: int
    label_w: int
    bar_w: int
    top: int
    rows: list[HBar]
    colour: str = COLOURS[0]


def hbar_chart(title: str, items: Sequence[tuple[str, Metric]], width: int = 520) -> HBarChart:
    """Horizontal bars, one per item, each as long as its figure (0 to 100%).

    The labels' column is as wide as the widest label, the figures' as the widest figure, and
    the bars take what is left of `width`; the chart grows past `width` rather than cut a
    label or a figure (a bar of 100% takes the whole track, so its figure is drawn after it)."""
    row_h, top = 22, 30
    values = [f"{pct(m)} ({m.count})" for _, m in items]
    label_w = round(PAD + max((text_width(label) for label, _ in items), default=0) + PAD)
    value_w = round(6 + max((text_width(v) for v in values), default=0) + PAD)
    bar_w = max(MIN_BAR_W, width - label_w - value_w)
    width = max(label_w + bar_w + value_w, round(PAD + text_width(title) + PAD))
    rows = [
        HBar(
            y=top + i * row_h,
            label=label,
            length=bar_w * (m.figure or 0.0),
            title=f"{label}: {m.count}/{m.denominator}",
            value=value,
        )
        for i, ((label, m), value) in enumerate(zip(items, values, strict=True))
    ]
    height = top + row_h * max(1, len(items)) + 10
    return HBarChart(title, width, height, label_w, bar_w, top, rows)


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    fill: str
    title: str


@dataclass(frozen=True)
class Group:
    """One label's bars; `ring` is where a perfectly calibrated bar would end, if shown."""

    label: str
    label_x: float
    bars: list[Bar]
    ring: tuple[float, float, str] | None = None


@dataclass(frozen=True)
class LegendEntry:
    x: float
    fill: str
    name: str


@dataclass(frozen=True)
class GroupedChart:
    title: str
    width: int
    height: int
    left: int
    plot_w: int
    label_y: int
    legend_y: int
    ticks: list[tuple[float, int]]
    groups: list[Group]
    legend: list[LegendEntry]
    ring_legend_x: float | None = None


def _group(
    g: int,
    label: str,
    metrics: Sequence[Metric],
    series: Sequence[str],
    geometry: tuple[float, ...],
) -> Group:
    left, top, plot_h, slot, bar = geometry
    x0 = left + g * slot + (slot - bar * len(metrics)) / 2
    bars = []
    for s, m in enumerate(metrics):
        h = plot_h * (m.figure or 0.0)
        bars.append(
            Bar(
                x=x0 + s * bar,
                y=top + plot_h - h,
                width=bar - 2,
                height=h,
                fill=COLOURS[s % len(COLOURS)],
                title=f"{series[s]}, {label}: {pct(m)} ({m.count}/{m.denominator})",
            )
        )
    return Group(label=label[:18], label_x=left + g * slot + slot / 2, bars=bars)


def grouped_bar_chart(
    title: str,
    groups: Sequence[tuple[str, Sequence[Metric]]],
    series: Sequence[str],
    diagonal: Sequence[float | None] = (),
    width: int = 520,
) -> GroupedChart:
    """Vertical bars, one group per label and one bar per series, on a 0-100% scale; with
    `diagonal`, a ring per group at that value: where a perfectly calibrated agent's bar would
    end (the middle of the confidence bucket)."""
    left, top, plot_h, legend_h = 40, 30, 160, 24
    plot_w = width - left - 10
    slot = plot_w / max(1, len(groups))
    bar = min(28.0, (slot - 10) / max(1, len(series)))
    laid = []
    for g, (label, metrics) in enumerate(groups):
        group = _group(g, label, metrics, series, (left, top, plot_h, slot, bar))
        if g < len(diagonal) and (d := diagonal[g]) is not None:
            ring = (group.label_x, top + plot_h - plot_h * d, f"calibrated: {d:.0%}")
            group = Group(group.label, group.label_x, group.bars, ring)
        laid.append(group)
    legend, x = [], float(left)
    for s, name in enumerate(series):
        legend.append(LegendEntry(x, COLOURS[s % len(COLOURS)], name))
        x += 24 + 7 * len(name)
    return GroupedChart(
        title=title,
        width=width,
        height=top + plot_h + 40 + legend_h,
        left=left,
        plot_w=plot_w,
        label_y=top + plot_h + 16,
        legend_y=top + plot_h + 36,
        ticks=[(top + plot_h - plot_h * tick / 100, tick) for tick in (0, 50, 100)],
        groups=laid,
        legend=legend,
        ring_legend_x=x if diagonal else None,
    )

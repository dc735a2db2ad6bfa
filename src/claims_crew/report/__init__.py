"""The report over the decision store, its HTML page, and the evaluation against labels."""

from claims_crew.report.build import (
    Amount,
    ClaimRow,
    Figures,
    Metric,
    Report,
    SideRow,
    build_report,
    load_rows,
    metric,
    report,
    row_from,
)

__all__ = [
    "Amount",
    "ClaimRow",
    "Figures",
    "Metric",
    "Report",
    "SideRow",
    "build_report",
    "load_rows",
    "metric",
    "report",
    "row_from",
]

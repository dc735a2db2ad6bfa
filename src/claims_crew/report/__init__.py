"""The report over the decision store, its HTML page, and the evaluation against labels."""

from claims_crew.report.build import Report, build_report
from claims_crew.report.from_facts import report
from claims_crew.report.metrics import Amount, Figures, Metric, metric
from claims_crew.report.rows import ClaimRow, SideRow, load_rows, row_from

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

"""The commands' tables at 80 columns: ids, outcomes and words are never broken in two.

rich fits a table that is too wide by folding words: "C-104/2", "ESCAL/ATED", "conflict/s".
cli/tables.py lays the columns out so that each is as wide as its longest word; where even that
cannot fit, the columns marked no_wrap (ids, outcomes) keep their words whole.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.cli.tables import Table
from claims_crew.policy.library import PolicyLibrary
from tests.support.crew import WATER_CLAIM, water_script
from tests.support.report import known_store


def words(text: str) -> set[str]:
    return set(text.split())


def table_lines(text: str, title: str) -> str:
    """The lines of the table under `title`, up to its bottom border."""
    start = text.index(title)
    return text[start : text.index("└", start)]


def test_the_run_table_keeps_ids_and_outcomes_whole_at_80_columns(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(WATER_CLAIM, inbox / WATER_CLAIM.name)
    # A claim file refused with a long reason shares the table with the decided claim.
    (inbox / "C-1099.json").write_text(json.dumps({"claim_id": "C-1099"}), encoding="utf-8")
    console = Console(record=True, width=80)
    review_inbox(inbox, 1, console, llm_for=water_script())
    table = table_lines(console.export_text(), "Claims reviewed")
    assert max(len(line) for line in table.splitlines()) <= 80
    assert {"C-1042", "ESCALATED", "C-1099.json", "not_covered"} <= words(table)

    listed = CliRunner().invoke(main, ["review", "list"], env={"COLUMNS": "80"})
    assert listed.exit_code == 0, listed.output
    assert {"C-1042", "needs_more_evidence"} <= words(listed.output)


def test_the_report_keeps_field_names_and_outcomes_whole_at_80_columns(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    known_store(sample_library, tmp_path / "claims")
    result = CliRunner().invoke(main, ["report"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    out = result.output
    fields = table_lines(out, "Fields null")
    assert {"damage_start_date", "amount_claimed", "verified", "disputed"} <= words(fields)
    assert {"ADJUDICATION_REQUIRED", "adjudicator_invalid", "needs_more_evidence"} <= words(out)
    assert {"4.2(b)", "water_damage"} <= words(out)


def wide_table() -> Table:
    """Six columns whose longest words fit side by side in 100 columns (98 with padding and
    rules), though their whole lines do not, and do not fit in 80."""
    table = Table(title="t")
    table.add_column("claim", no_wrap=True)
    for header in ("conflicts", "unverified", "outcome", "question"):
        table.add_column(header, overflow="fold")
    table.add_column("url", no_wrap=True)
    table.add_row(
        "C-1042",
        "28.6% (2/7)",
        "14.3% (1)",
        "ESCALATED (low_confidence)",
        "When did the damage start, and was it sudden or gradual seepage over weeks?",
        "http://127.0.0.1:8000/e/C-1042",
    )
    return table


def test_every_word_stays_whole_where_the_longest_words_fit() -> None:
    table = wide_table()
    console = Console(record=True, width=120)
    console.print(table)
    wide = console.export_text()
    narrow = Console(record=True, width=100)
    narrow.print(table)
    text = narrow.export_text()
    assert max(len(line) for line in text.splitlines()) <= 100 < len(wide.splitlines()[2])
    cells = [*(c.header for c in table.columns), *(cell for c in table.columns for cell in c.cells)]
    assert set().union(*(words(str(cell)) for cell in cells)) <= words(text)
    # The layout is for one rendering: the table prints as before at the first width.
    again = Console(record=True, width=120)
    again.print(table)
    assert again.export_text() == wide


def test_where_words_cannot_all_fit_ids_and_short_words_stay_whole() -> None:
    console = Console(record=True, width=80)
    console.print(wide_table())
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert {"C-1042", "http://127.0.0.1:8000/e/C-1042", "28.6%", "(2/7)", "14.3%"} <= words(text)
    # Only the columns with the longest words fold them.
    assert "(low_confidence)" not in words(text)

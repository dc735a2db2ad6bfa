"""`claims-crew policy clauses --text`: every clause with its own words, the policy read once."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.document import PolicyDocument


def _clauses(*flags: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["policy", "clauses", "HM-HOME-001", "--json", *flags])
    assert result.exit_code == 0, result.stderr
    rows: list[dict[str, Any]] = json.loads(result.stdout)["clauses"]
    return rows


def test_text_adds_each_clauses_own_text(home_policy: PolicyDocument) -> None:
    rows = _clauses("--text")
    assert len(rows) == len(home_policy.clauses)
    # The same rows as without --text, each with its text added.
    assert [{k: v for k, v in row.items() if k != "text"} for row in rows] == _clauses()
    assert [row["text"] for row in rows] == [c.text for c in home_policy.clauses]
    by_id = {row["id"]: row for row in rows}
    water = by_id["4.2(b)"]
    assert "sudden and accidental discharge" in " ".join(water["text"].split())
    # Its own lines only: the sub-clause's words are in its own row, not in its parent's.
    assert "sudden and accidental" not in " ".join(by_id["4.2"]["text"].split())
    assert "sudden and accidental" in " ".join(home_policy.full_text("4.2").split())


def test_the_texts_in_order_are_the_whole_policy_once(home_policy: PolicyDocument) -> None:
    listed = "\n".join(row["text"] for row in _clauses("--text") if row["text"])
    roots = [c for c in home_policy.clauses if c.parent is None]
    whole = "\n".join(text for c in roots if (text := home_policy.full_text(c.id)))
    assert listed == whole


def test_without_text_no_row_carries_text() -> None:
    assert not any("text" in row for row in _clauses())


def test_the_table_shows_the_text_too() -> None:
    plain = CliRunner().invoke(main, ["policy", "clauses", "HM-HOME-001"], env={"COLUMNS": "300"})
    with_text = CliRunner().invoke(
        main, ["policy", "clauses", "HM-HOME-001", "--text"], env={"COLUMNS": "300"}
    )
    assert with_text.exit_code == 0, with_text.stderr
    # The title stops short of the end of 4.2(b)'s first line; the text goes on.
    assert "system or a household appliance" in with_text.stdout
    assert "system or a household appliance" not in plain.stdout

"""config/prices.yaml: optional; checked by `config check` at its keys and lines; never guessed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.config_check import check_config
from claims_crew.errors import ConfigError
from claims_crew.prices import PriceTable, load_prices
from tests.support.paths import ROOT

BAD = """\
currency: EUR
models:
  openai/gpt-4o-mini:
    input: -0.15
    ouput: 0.60
  gpt-4o:
    input: "2.50 $"
    output: .inf
  local: 0
discount: 10
"""


def config_with(tmp_path: Path, prices: str | None) -> Path:
    folder = tmp_path / "config"
    shutil.copytree(ROOT / "config", folder)
    if prices is not None:
        (folder / "prices.yaml").write_text(prices, encoding="utf-8")
    return folder


def test_no_price_table_is_no_problem_and_no_prices(tmp_path: Path) -> None:
    folder = config_with(tmp_path, None)
    assert not (folder / "prices.yaml").exists()
    assert [p for p in check_config(folder) if p.file == "prices.yaml"] == []
    assert load_prices(folder) is None


def test_each_mistake_is_placed_with_a_hint(tmp_path: Path) -> None:
    found = [
        (p.key, p.line, p.code, p.hint)
        for p in check_config(config_with(tmp_path, BAD))
        if p.file == "prices.yaml"
    ]
    assert [(key, line, code) for key, line, code, _ in found] == [
        ("models.openai/gpt-4o-mini", 3, "missing_key"),  # its output price is misspelt
        ("models.openai/gpt-4o-mini.input", 4, "negative_price"),
        ("models.openai/gpt-4o-mini.ouput", 5, "unknown_key"),
        ("models.gpt-4o.input", 7, "bad_price"),
        ("models.gpt-4o.output", 8, "bad_price"),
        ("models.local", 9, "invalid_value"),
        ("discount", 10, "unknown_key"),
    ]
    hints = {key: hint for key, _, _, hint in found}
    assert hints["models.openai/gpt-4o-mini.ouput"] == "did you mean 'output'?"
    assert "zero or more" in hints["models.openai/gpt-4o-mini.input"]
    assert "no quotes" in hints["models.gpt-4o.input"]
    assert "{input: NUMBER, output: NUMBER}" in hints["models.local"]
    # Both known keys are written already, so the hint names neither.
    assert hints["discount"] == "every key here is set already: remove it"


def test_config_check_and_the_report_refuse_a_bad_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = config_with(tmp_path, BAD)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(folder))
    checked = CliRunner().invoke(main, ["config", "check"])
    assert checked.exit_code == 2
    with pytest.raises(ConfigError, match=r"prices\.yaml is not a valid price table"):
        load_prices(folder)
    reported = CliRunner().invoke(main, ["report"])
    assert reported.exit_code == 2
    assert "claims-crew config check shows where" in reported.output


def test_a_good_table_prices_by_name_with_or_without_provider(tmp_path: Path) -> None:
    good = (
        "models:\n"
        "  openai/gpt-4o-mini: {input: 0.15, output: 0.6}\n"
        "  local: {input: 0, output: 0}\n"
    )
    folder = config_with(tmp_path, good)
    assert [p for p in check_config(folder) if p.file == "prices.yaml"] == []
    table = load_prices(folder)
    assert isinstance(table, PriceTable) and table.currency == "USD"
    price = table.price_of("gpt-4o-mini")  # as CrewAI's OpenAI client names it
    assert price is not None and price.cost(1_000_000, 2_000_000) == pytest.approx(1.35)
    assert table.price_of("openai/gpt-4o") is None

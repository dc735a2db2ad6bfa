"""Text from a claim file, a model or a provider is never markup and never terminal control: the
run's table survives a provider error quoting `[/x]`, and `review show` prints a description's
escape sequences as text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.cli.safe_text import clean, json_text, markup, plain
from claims_crew.llms.scripted import ScriptedLLM, final
from claims_crew.store import Store
from tests.support.crew import FRAUD_EXCLUDED, INTAKE_WATER, WATER_CLAIM, Script, water_script
from tests.support.paths import ROOT

# What a hostile claim may carry: retitle the window, clear the screen, a C1 CSI, a reordering
# mark, and markup that would restyle or break rich.
HOSTILE = "Leak.\x1b]0;owned\x07\x1b[2J\x9b31mred\u202e [bold]x[/bold] [/x]"
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain words", "plain words"),
        ("two\nlines\tand a tab", "two\nlines\tand a tab"),
        ("windows\r\nline end", "windows\nline end"),
        ("\x1b[2Jcleared", "\\x1b[2Jcleared"),
        ("bell\x07 back\x08 cr\r del\x7f", "bell\\x07 back\\x08 cr\\x0d del\\x7f"),
        ("c1 \x9b31m csi", "c1 \\x9b31m csi"),
        ("abc\u202edef", "abc\\u202edef"),
        ("naïve café £", "naïve café £"),
    ],
)
def test_control_characters_are_shown_as_escapes(text: str, shown: str) -> None:
    assert clean(text) == shown
    assert plain(text).plain == shown


def test_markup_in_outside_text_prints_as_written() -> None:
    console = Console(record=True, width=200)
    outside = "closing [/x] and [bold]open, then a backslash\\"
    console.print(f"[red]why: {markup(outside)}[/red] (the tag after it still closes)")
    assert console.export_text().rstrip("\n") == (
        "why: closing [/x] and [bold]open, then a backslash\\ (the tag after it still closes)"
    )


def test_json_output_keeps_its_value_but_no_raw_control() -> None:
    document = json.dumps({"description": HOSTILE}, ensure_ascii=False)
    safe = json_text(document)
    assert json.loads(safe) == {"description": HOSTILE}
    assert not any(c in safe for c in RAW_CONTROLS)


def test_a_provider_error_quoting_markup_leaves_the_table_and_the_summary(
    tmp_path: Path,
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(WATER_CLAIM, inbox / WATER_CLAIM.name)

    def refuse(_messages: object) -> str:
        raise RuntimeError("upstream said [/x] \x1b[2J")

    script = Script()
    script.llms = {"intake": ScriptedLLM(responder=refuse)}
    console = Console(record=True, width=300)
    assert review_inbox(inbox, 1, console, llm_for=script) == 1
    shown = console.export_text()
    assert "upstream said [/x] \\x1b[2J" in shown
    assert "0 claim(s) escalated in this run" in shown  # the summary after the table
    record = Store().claim_record("C-1042")
    assert record is not None and record.error is not None
    assert "[/x]" in record.error.message  # the store keeps what the provider said


@pytest.fixture
def hostile_escalation(tmp_path: Path) -> str:
    """The water claim, escalated, with a hostile description and hostile model text."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    claim = json.loads(WATER_CLAIM.read_text(encoding="utf-8"))
    (inbox / "C-1042.json").write_text(json.dumps({**claim, "description": HOSTILE}))
    script = water_script()
    script.llms["intake"] = ScriptedLLM(
        [final({**INTAKE_WATER, "loss_type": "water [/x]\x1b[31m"})]
    )
    script.llms["fraud"] = ScriptedLLM(
        [final({**FRAUD_EXCLUDED, "rationale": "seepage [/x] \x1b]0;owned\x07"})]
    )
    assert review_inbox(inbox, 1, Console(record=True), llm_for=script) == 0
    return "C-1042"


def test_review_show_prints_escape_sequences_as_text(hostile_escalation: str) -> None:
    result = CliRunner().invoke(main, ["review", "show", hostile_escalation])
    assert result.exit_code == 0, result.output
    assert not any(c in result.output for c in RAW_CONTROLS)
    assert "Leak.\\x1b]0;owned\\x07\\x1b[2J\\x9b31mred\\u202e [bold]x[/bold] [/x]" in result.output
    assert "seepage [/x] \\x1b]0;owned\\x07" in result.output

    as_json = CliRunner().invoke(main, ["review", "show", hostile_escalation, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert not any(c in as_json.output for c in RAW_CONTROLS)
    assert json.loads(as_json.output)["claim"]["description"] == HOSTILE


def test_the_report_prints_a_models_markup_as_text(hostile_escalation: str) -> None:
    result = CliRunner().invoke(main, ["report"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "water [/x]\\x1b[31m" in result.output
    assert "\x1b" not in result.output


def test_a_config_key_with_markup_is_named_as_written(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    agents = yaml.safe_load((config / "agents.yaml").read_text(encoding="utf-8"))
    agents["intake"]["[/x]\x1b[31m"] = "oops"
    (config / "agents.yaml").write_text(yaml.safe_dump(agents), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["config", "check", "--config-dir", str(config)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 2, result.output
    assert "intake.[/x]\\x1b[31m" in result.output
    assert "\x1b" not in result.output


def test_a_clause_still_prints_as_the_policy_has_it() -> None:
    """The clause text a reviewer reads is unchanged by the escaping (no control in it)."""
    result = CliRunner().invoke(main, ["policy", "show", "HM-HOME-001", "4.2(b)"])
    assert result.exit_code == 0, result.output
    assert "sudden and accidental discharge of water" in " ".join(result.output.split())

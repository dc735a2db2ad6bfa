"""Commands that may take over a second say what they are doing before they do it (a plain line
on stderr outside a terminal, none with --json); `appeal` refuses a claim with nothing to appeal
before it loads a model or says it is reopening the claim."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run import project
from claims_crew.store import Store
from tests.support.store import accepted_answers, record_for, water_loaded


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """C-1042 escalated, C-2000 decided by the rules."""
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    theft = water_loaded(tmp_path / "inbox", "C-2000")
    store.record(record_for(theft, sample_library, **accepted_answers()), None, theft)
    return store


SAID = [
    (("review", "list"), "reading the open escalations from the store"),
    (("review", "show", "C-1042"), "reading C-1042 and re-reading its cited clauses"),
    (("claim", "show", "C-2000"), "reading C-2000 from the store"),
    (("report",), "reading the decisions in the store for the report"),
    (("letter", "C-2000"), "writing C-2000's md letter from its stored decision"),
]


@pytest.mark.slow  # five commands, each twice, on one store (what they say is not the store's)
def test_a_slow_command_says_what_it_is_doing_first(store: Store) -> None:
    for args, line in SAID:
        shown = CliRunner().invoke(main, list(args))
        assert shown.exit_code == 0, shown.output
        assert shown.stderr.splitlines()[0] == line, args  # before anything else it prints
        assert line not in shown.stdout  # stdout stays the command's own output
        quiet = CliRunner().invoke(main, [*args, "--json"])
        assert quiet.exit_code == 0, quiet.output
        assert line not in quiet.stderr, args


@pytest.mark.usefixtures("engine")
def test_an_appeal_of_an_undecided_claim_is_refused_before_any_model_is_loaded(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_models(*_: object, **__: object) -> None:
        raise AssertionError("the models were loaded for an appeal that could not be taken")

    monkeypatch.setattr(project, "project_settings", no_models)
    new = tmp_path / "plumber.txt"
    new.write_text("The joint split on 3 November 2025.", encoding="utf-8")
    for claim_id, why in (("C-1042", "waits for a person"), ("C-9999", "no decision")):
        refused = CliRunner().invoke(
            main, ["appeal", claim_id, "--attach", str(new), "--reason", "New evidence."]
        )
        assert refused.exit_code == 2, refused.output
        assert why in refused.stderr and "reopening" not in refused.output

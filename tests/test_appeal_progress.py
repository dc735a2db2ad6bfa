"""What `claims-crew appeal` shows while it works, as a run does (cli/progress.py): a line as the
claim is reopened and as its review begins, the claim under review and for how long (a line in a
log, a column of the bar in a terminal), and a line when it is done; never minutes of silence.

The intake model's first answer is held until the display has named the claim under review, so
the test waits for what it asserts instead of for a time."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from rich.console import Console

from claims_crew.cli import progress
from claims_crew.cli.appeal import appeal_shown
from claims_crew.llms.base import Messages
from claims_crew.llms.scripted import ScriptedLLM, final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.context import build_context
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    Script,
    start_date_answer,
)
from tests.support.paths import ROOT
from tests.support.store import accepted_answers, record_for, water_loaded

WAITING = "waiting on C-1042.json"


class Watched(io.StringIO):
    """A console's file that notes when the claim under review has been named."""

    def __init__(self) -> None:
        super().__init__()
        self.named = threading.Event()

    def write(self, text: str) -> int:
        if WAITING in text:
            self.named.set()
        return super().write(text)


@pytest.mark.parametrize("terminal", [False, True], ids=["log", "terminal"])
def test_an_appeal_names_the_claim_under_review_until_it_is_decided(
    tmp_path: Path,
    sample_library: PolicyLibrary,
    monkeypatch: pytest.MonkeyPatch,
    terminal: bool,
) -> None:
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.05)
    store = Store()
    water = water_loaded(tmp_path / "inbox", "C-1042")
    accepted = store.record(record_for(water, sample_library, **accepted_answers()), None, water)
    evidence = tmp_path / "new" / "plumber-report.txt"
    evidence.parent.mkdir()
    evidence.write_text("The joint under the bath split on 3 November 2025.", encoding="utf-8")
    shown = Watched()
    console = Console(file=shown, force_terminal=terminal, width=200)

    def held(_messages: Messages) -> str:
        # Bounded, so a display that never names the claim fails below instead of hanging.
        shown.named.wait(timeout=120)
        return final(INTAKE_WATER)

    script = Script(policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)])
    script.llms["fraud"] = ScriptedLLM([final(FRAUD_EXCLUDED)], model="scripted-fraud")
    script.llms["intake"] = ScriptedLLM(
        [held, final(start_date_answer(None))], model="scripted-intake"
    )
    settings = build_context(
        library=sample_library, llm_for=script, store=store, config_dir=ROOT / "config"
    )

    done = appeal_shown(settings, "C-1042", [evidence], "Seepage after all", console)

    assert done.error is None and done.replaces == accepted.audit_seq
    assert shown.named.is_set(), shown.getvalue()
    output = shown.getvalue()
    reopening = output.index("C-1042: reopening the claim with plumber-report.txt")
    reviewing = output.index("C-1042: reviewing it again with the new evidence")
    waiting = output.index(WAITING)
    finished = output.index(
        f"[1/1] C-1042: appeal reviewed: ESCALATED, back to the review queue; audit entry "
        f"{done.audit_seq} replaces entry {accepted.audit_seq}."
    )
    assert reopening < reviewing < waiting < finished
    if not terminal:  # a log gets whole lines, the heartbeat's among them
        lines = output.splitlines()
        assert any(line.startswith(f"{WAITING} ") and line.endswith(" s") for line in lines)

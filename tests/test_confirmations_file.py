"""policies/confirmations.yaml when two leads confirm at once: each confirmation's line is kept.

Writing it is read, set, replace (policy/confirmations.py). Two real processes confirm a
different endorsement each, starting every round together at a barrier, many rounds; every
line of both must be in the file at the end.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from claims_crew.policy.confirmations import load_confirmations
from tests.support.readings import confirm_rounds

ROUNDS = 60


@pytest.mark.slow  # two fresh interpreters, each importing the package
def test_two_leads_confirming_at_once_keep_both_lines(tmp_path: Path) -> None:
    # spawn, not fork: the test process may hold threads (a PDF reader's spare child's pipes).
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    leads = [
        context.Process(target=confirm_rounds, args=(str(tmp_path), who, ROUNDS, barrier))
        for who in ("lead-a", "lead-b")
    ]
    for lead in leads:
        lead.start()
    try:
        for lead in leads:
            lead.join(timeout=300)  # a bound for a hung run, never met by a working one
    finally:
        for lead in leads:
            if lead.is_alive():  # the other one died: this one waits at the barrier for ever
                lead.kill()
    assert [lead.exitcode for lead in leads] == [0, 0]

    kept = load_confirmations(tmp_path)
    lost = [
        f"{who}-{n}"
        for who in ("lead-a", "lead-b")
        for n in range(ROUNDS)
        if f"{who}-{n}" not in kept
    ]
    assert lost == [], f"{len(lost)} confirmation(s) lost: {lost[:10]}"
    assert kept["lead-b-7"].by == "lead-b" and kept["lead-b-7"].digest == f"{7:064x}"
    assert not list(tmp_path.glob("*.tmp"))  # no half-written file left

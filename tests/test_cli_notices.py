"""The store's notices are lines of the command's own output, not logging records: a run in a
new home says that it made the audit key, and no raw `WARNING:name:` log line is printed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.cli.notices import print_notices
from claims_crew.notices import NOTICES, NoticeLines, show_notices, tell
from tests.support.crew import WATER_CLAIM
from tests.support.paths import ROOT

pytestmark = pytest.mark.usefixtures("engine")

NOTICE = "notice: created the audit key "

# The real `claims-crew run` with the model scripted: the water claim reviewed end to end.
RUN = """
import sys
import claims_crew.llms.select as select
from claims_crew.llms.scripted import final, lookup
from tests.support.crew import FRAUD_EXCLUDED, INTAKE_WATER, POLICY_COVERED, Script
from tests.support.crew import start_date_answer

script = Script()
script("intake").enqueue(final(INTAKE_WATER), final(start_date_answer(None)))
script("policy").enqueue(lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED))
script("fraud").enqueue(final(FRAUD_EXCLUDED))
select.default_llm_factory = lambda *args, **kwargs: script
from claims_crew.cli import main
main(["run", "--inbox", sys.argv[1]], prog_name="claims-crew")
"""

# One worker process of `run --workers N`, whose claim writes the store's first audit entry.
WORKER = """
import sys
from claims_crew.run import work_process
from claims_crew.run.worker import Worker

def run(self):
    self.settings.store.audit_key()  # what the first entry a worker writes does

Worker.run = run
work_process.main(sys.argv[1:])
"""


def without_audit_key(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`code` run in a new Python process with `args`, in a home with no audit key yet."""
    env = {k: v for k, v in os.environ.items() if k != "CLAIMS_CREW_AUDIT_KEY"}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_the_cli_and_a_worker_install_the_one_handler_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(NOTICES, "handlers", [])  # as in a new process
    monkeypatch.setattr(NOTICES, "propagate", True)
    show_notices()  # a run's worker process: plain lines
    print_notices()  # then the command line's: the handler is there already
    assert [type(handler) for handler in NOTICES.handlers] == [NoticeLines]
    assert NOTICES.propagate is False
    tell("the database is back")
    assert capsys.readouterr().err == "notice: the database is back\n"


def test_a_run_says_it_made_the_audit_key_as_a_line_of_its_own(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(WATER_CLAIM, inbox / WATER_CLAIM.name)
    done = without_audit_key(RUN, str(inbox))
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "C-1042" in done.stdout  # the run's table: the claim was reviewed
    notices = [line for line in done.stderr.splitlines() if line.startswith(NOTICE)]
    assert len(notices) == 1, said  # once: the first entry made the key
    assert "keep a copy away from the database" in notices[0]
    assert not [line for line in said.splitlines() if line.startswith("WARNING:")], said


def test_another_command_says_it_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAIMS_CREW_AUDIT_KEY", raising=False)
    logger = NOTICES
    monkeypatch.setattr(logger, "handlers", [])  # as in a new process
    monkeypatch.setattr(logger, "propagate", True)
    result = CliRunner().invoke(main, ["reviewers", "add", "ada", "--role", "lead"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count(NOTICE) == 1, result.stderr
    assert "WARNING:" not in result.output


def test_a_runs_worker_process_says_it_as_a_line_of_its_own_too() -> None:
    done = without_audit_key(WORKER, "store", str(ROOT / "config"), "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # stdout carries the worker's events alone
    notices = [line for line in done.stderr.splitlines() if line.startswith(NOTICE)]
    assert len(notices) == 1, done.stderr
    assert "WARNING:" not in done.stderr, done.stderr

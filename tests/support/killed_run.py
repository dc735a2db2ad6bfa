"""A batch over an inbox with scripted models that logs every model call by claim.

Run as
`python -m tests.support.killed_run INBOX CALLS_LOG [--kill-at CLAIM_ID --kill-in model|write]`
to have the process SIGKILL itself: at the first model call for that claim, or inside the
store's transaction for that claim, after part of its result is written. The store tests run
it in a child process, then re-run the inbox, to show what a killed run leaves behind.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claims_crew.claim_files import inbox_files
from claims_crew.llms.scripted import ScriptedLLM, final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import SETTLED, review_ingested
from claims_crew.run.context import build_context
from claims_crew.run.ingest import ingest
from claims_crew.run.routine import BatchItem
from claims_crew.store import Store, audit
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    QUESTION_TAIL,
    start_date_answer,
)
from tests.support.paths import ROOT

CLAIM_ID = re.compile(r"claim (K-\d+)")


def _text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages)


class Responders:
    """Scripted answers for every claim of the water example, logging each call."""

    def __init__(self, calls_log: Path, kill_at: str | None = None) -> None:
        self.calls_log = calls_log
        self.kill_at = kill_at

    def _log(self, agent: str, messages: list[dict[str, Any]]) -> str:
        found = CLAIM_ID.search(_text(messages))
        claim_id = found[1] if found else "?"
        with self.calls_log.open("a", encoding="utf-8") as log:
            log.write(f"{claim_id} {agent}\n")
        if claim_id == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return claim_id

    def answer(self, agent: str) -> Callable[[list[dict[str, Any]]], str]:
        def respond(messages: list[dict[str, Any]]) -> str:
            self._log(agent, messages)
            if agent == "intake":  # its facts; asked when the damage started, null
                asked = QUESTION_TAIL in _text(messages)
                return final(start_date_answer(None) if asked else INTAKE_WATER)
            if agent == "fraud":
                return final(FRAUD_EXCLUDED)
            # The policy agent looks 4.2(b) up, then answers once the tool has replied.
            if "Observation" in _text(messages[-1:]) or "clause_id: 4.2(b)" in _text(messages):
                return final(POLICY_COVERED)
            return lookup("HM-HOME-001", "4.2(b)")

        return respond

    def __call__(self, agent: str) -> ScriptedLLM:
        return ScriptedLLM(model=f"scripted-{agent}", responder=self.answer(agent))


def run(inbox: Path, calls_log: Path, kill_at: str | None = None) -> list[BatchItem]:
    settings = build_context(
        library=PolicyLibrary(),
        llm_for=Responders(calls_log, kill_at),
        config_dir=ROOT / "config",
        store=Store(),
    )
    todo = [i for i in ingest(inbox_files(inbox), settings.store) if i.state not in SETTLED]
    return review_ingested(todo, settings)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("inbox", type=Path)
    parser.add_argument("calls_log", type=Path)
    parser.add_argument("--kill-at")
    parser.add_argument("--kill-in", choices=("model", "write"), default="model")
    args = parser.parse_args()
    if args.kill_in == "write":
        append = audit.append

        def killed_append(conn: Any, key: Any, **fields: Any) -> Any:
            # The claim's attempt, outputs and ledger are written by now, uncommitted.
            if fields["claim_id"] == args.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return append(conn, key, **fields)

        audit.append = killed_append  # type: ignore[assignment]
        run(args.inbox, args.calls_log)
    else:
        run(args.inbox, args.calls_log, args.kill_at)


if __name__ == "__main__":
    main()

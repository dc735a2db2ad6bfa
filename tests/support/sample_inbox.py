"""Scripted provider replies for every sample claim in claims/inbox, and what a run of them
should ask: the provider tests, the worker tests and bench/provider.py share them."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import inbox_files
from claims_crew.cli import main
from claims_crew.store import Store
from tests.support.attachments import (
    INTAKE_SPLIT,
    SPLIT_REPORT,
    SPLIT_RULING,
    SPLIT_STARTED,
)
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_BURST,
    INTAKE_LEAK,
    INTAKE_WATER,
    POLICY_COVERED,
    start_date_answer,
)
from tests.support.email_claim import HOSE_COVERED, INTAKE_HOSE
from tests.support.forms import INTAKE_FORM, STORM_CLAUSE
from tests.support.issued_policies import (
    AMENDED_WATER,
    HOT_TUB_EXCLUSION,
    RIDE_SHARE_CLAUSE,
    RIDE_SHARE_EXCLUSION,
)
from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, StartServer
from tests.support.paths import ROOT
from tests.support.provider import (
    CrewScript,
    Scripted,
    agent_of,
    answer,
    claim_of,
    look_up_then,
    point_model_at,
)

MEET_S = 5.0  # how long a reviewer's first call waits for the other's

# C-1043 with every fact stated and sourced (INTAKE_BURST): both reviewers hold and read 4.2(b)
# and 7.1 differently, so the rules find an interpretation dispute and ask the adjudicator.
RULING = {
    "choice": "policy",
    "reason": "A pipe that burst without warning is a sudden discharge; 7.1 is about seepage.",
    "evidence": ["4.2(b)"],
}
LEAK_RULING = {
    "choice": "fraud",
    "reason": "Damage that grew over five weeks is repeated leakage: 7.1 excludes it.",
    "evidence": ["7.1"],
}
NO_FACTS: dict[str, Any] = {
    "loss_type": None,
    "cause": None,
    "date_of_loss": None,
    "damage_start_date": None,
    "amount_claimed": None,
    "unknowns": ["loss_type", "cause"],
    "sources": {},
}
# claim id → (answer both reviewers give, the clause both look up, its words); None: both
# look a clause up and abstain.
AGREED: dict[str, tuple[str, str, str] | None] = {
    "C-1044": (
        "covered",
        "4.4(a)",
        "theft or attempted theft involving forcible and violent entry",
    ),
    "C-1045": (
        "not_covered",
        "7.2",
        "the rising or overflow of any lake, river, stream or the sea",
    ),
    "C-1046": ("covered", "4.3(a)", "heavy snowfall or hail"),
    "C-1047": ("not_covered", "7.1(c)", "failure or lack of grout, sealant or caulking"),
    "C-1050": (
        "covered",
        "4.4(a)",
        "theft or attempted theft involving forcible and violent entry",
    ),
    # On HM-25-00417, whose endorsements change these clauses: both reviewers quote the wording
    # in force that policy_lookup returned. C-1053's washing machine is 14 years old, and 4.2(b)
    # as HM-E-07 replaced it covers an appliance less than 10 years old.
    "C-1053": ("not_covered", "4.2(b)", AMENDED_WATER),
    # C-1054's hot tub: exclusion 7.12, which HM-E-09 added from 2025-07-01.
    "C-1054": ("not_covered", "7.12", HOT_TUB_EXCLUSION),
    "C-2001": None,
    "C-2002": None,
    "C-2003": None,
    "C-2004": None,
    # Logged on to a ride-share app: the exclusion MA-E-12 added from 2025-09-01.
    "C-2005": ("not_covered", RIDE_SHARE_CLAUSE, RIDE_SHARE_EXCLUSION),
    "C-3001": None,
}
POLICY_OF = {
    "C-2001": "MR-AUTO-001",
    "C-2002": "MR-AUTO-001",
    "C-2003": "MR-AUTO-001",
    "C-2004": "MR-AUTO-001",
    "C-2005": "MR-AUTO-001",
    "C-3001": "WF-TRAVEL-001",
}


class Meeting:
    """Holds a reviewer's first request until the claim's other reviewer has sent its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._arrived: dict[tuple[str, str], threading.Event] = {}

    def _event(self, claim_id: str, agent: str) -> threading.Event:
        with self._lock:
            return self._arrived.setdefault((claim_id, agent), threading.Event())

    def __call__(self, then: Scripted) -> Scripted:
        def reply(request: ChatRequest) -> Reply:
            claim_id, agent = claim_of(request), agent_of(request)
            if not request.tool_results:  # the reviewer's first call of the task
                self._event(claim_id, agent).set()
                other = "fraud" if agent == "policy" else "policy"
                self._event(claim_id, other).wait(MEET_S)
            return then(request) if callable(then) else then

        return reply


def claim_answer(verdict: str, clause_id: str, quote: str) -> dict[str, Any]:
    return {
        "answer": verdict,
        "confidence": 0.9,
        "evidence": [{"clause_id": clause_id, "quote": quote}],
        "facts_relied_on": [],
        "rationale": f"{clause_id} decides it.",
    }


ABSTAIN = {
    "answer": "uncertain",
    "confidence": 0.2,
    "evidence": [],
    "facts_relied_on": ["cause"],
    "rationale": "The claim does not say enough.",
    "abstain_reason": "needs_more_evidence",
}


def inbox_script(meet: Meeting) -> CrewScript:
    """Every sample claim: each reviewer looks a clause up, then answers."""
    script = CrewScript()
    # C-1042 never says when the damage started: asked again, intake answers null.
    script.set("C-1042", "intake", answer(INTAKE_WATER), answer(start_date_answer(None)))
    script.set("C-1042", "policy", meet(look_up_then("4.2(b)", POLICY_COVERED)))
    script.set("C-1042", "fraud", meet(look_up_then("7.1", FRAUD_EXCLUDED)))
    script.set("C-1043", "intake", answer(INTAKE_BURST))
    script.set("C-1043", "policy", meet(look_up_then("4.2(b)", POLICY_COVERED)))
    script.set("C-1043", "fraud", meet(look_up_then("7.1", FRAUD_EXCLUDED)))
    script.set("C-1043", "adjudicator", answer(RULING))
    # C-1048 says it only in the plumber's report: asked again, intake quotes it from there.
    script.set("C-1048", "intake", answer(INTAKE_LEAK), answer(start_date_answer("2025-10-06")))
    script.set("C-1048", "policy", meet(look_up_then("4.2(b)", POLICY_COVERED)))
    script.set("C-1048", "fraud", meet(look_up_then("7.1", FRAUD_EXCLUDED)))
    script.set("C-1048", "adjudicator", answer(LEAK_RULING))
    # C-1049 says it only on page 2 of the plumber's PDF report, as C-1048 in its text one.
    split_started = start_date_answer("2026-01-16", SPLIT_STARTED, SPLIT_REPORT)
    script.set("C-1049", "intake", answer(INTAKE_SPLIT), answer(split_started))
    script.set("C-1049", "policy", meet(look_up_then("4.2(b)", POLICY_COVERED)))
    script.set("C-1049", "fraud", meet(look_up_then("7.1", FRAUD_EXCLUDED)))
    script.set("C-1049", "adjudicator", answer(SPLIT_RULING))
    # C-1051 states the date and cause of its loss only in its filled loss notice's fields.
    script.set("C-1051", "intake", answer(INTAKE_FORM))
    for agent in ("policy", "fraud"):
        covered = claim_answer("covered", "4.3(a)", STORM_CLAUSE)
        script.set("C-1051", agent, meet(look_up_then("4.3(a)", covered)))
    # C-1052 arrives as an e-mail: its cause is quoted from the body, its start date from the
    # plumber's PDF the e-mail carries; both reviewers find it a sudden discharge.
    script.set("C-1052", "intake", answer(INTAKE_HOSE))
    for agent in ("policy", "fraud"):
        script.set("C-1052", agent, meet(look_up_then("4.2(b)", HOSE_COVERED)))
    for claim_id, agreed in AGREED.items():
        script.set(claim_id, "intake", answer(NO_FACTS))
        policy_id = POLICY_OF.get(claim_id, "HM-HOME-001")
        for agent in ("policy", "fraud"):
            if agreed is None:
                reviewer = look_up_then("1", ABSTAIN, policy_id)
            else:
                reviewer = look_up_then(agreed[1], claim_answer(*agreed), policy_id)
            script.set(claim_id, agent, meet(reviewer))
    return script


INBOX = ROOT / "claims" / "inbox"
CLAIM_IDS = [p.stem for p in inbox_files(INBOX)]
# What each claim's agents are asked once (a reviewer looks a clause up, then answers).
ONCE = {"intake": 1, "policy": 2, "fraud": 2}


def sample_script() -> CrewScript:
    """Every sample claim: each reviewer looks a clause up, then answers; C-1043 is the dispute
    the adjudicator settles. A sample claim the speed tests do not script abstains."""
    script = inbox_script(lambda reply: reply)
    for claim_id in set(CLAIM_IDS) - {"C-1042", "C-1043", "C-1051", "C-1052", *AGREED}:
        script.set(claim_id, "intake", answer(NO_FACTS))
        for agent in ("policy", "fraud"):
            script.set(claim_id, agent, look_up_then("1", ABSTAIN))
    return script


def expected_calls(claim_ids: list[str]) -> Counter[tuple[str, str]]:
    """One review of each claim: C-1042's facts conflict, so intake is asked one targeted
    question (level 1); C-1043 is a dispute, so the adjudicator is asked once."""
    wanted = Counter({(c, agent): n for c in claim_ids for agent, n in ONCE.items()})
    if "C-1042" in claim_ids:
        wanted[("C-1042", "intake")] += 1
    if "C-1043" in claim_ids:
        wanted[("C-1043", "adjudicator")] = 1
    return wanted


def calls(server: OpenAIServer, since: int = 0) -> Counter[tuple[str, str]]:
    """Requests the server answered per (claim, agent), from its own log."""
    return Counter((claim_of(e.request), agent_of(e.request)) for e in server.exchanges[since:])


def start(openai_server: StartServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    server = openai_server(sample_script())
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    return server


def attempts(store: Store) -> dict[str, int]:
    return {c: len(store.attempts(c)) for c in CLAIM_IDS}


def audit_ok() -> bool:
    result = CliRunner().invoke(main, ["audit", "verify", "--json"])
    return result.exit_code == 0 and '"ok": true' in result.output

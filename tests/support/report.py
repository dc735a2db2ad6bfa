"""A store of thirteen known decisions for the report and evaluation tests.

Every record is resolved by the real resolver against the sample home policy (and the
adjudicator's answers are checked by the real `apply_adjudication`), so outcomes, reason codes
and clause checks are what a run would store. The figures the tests expect are counted by hand
from the table in `KNOWN` below.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from claims_crew.claim_files import LoadedClaim
from claims_crew.desk import DeskRules
from claims_crew.models import (
    AdjudicatorAnswer,
    Claim,
    ClaimFile,
    IntakeFacts,
    LedgerEntry,
    ParseFailure,
)
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord, StageTime, TaskUsage
from claims_crew.report import ClaimRow, SideRow
from claims_crew.resolver import AdjudicationCheck, apply_adjudication, policy_checks, resolve
from claims_crew.resolver.config import load_config
from claims_crew.resolver.reread import policy_view, read_case
from claims_crew.store import Store
from tests.support.crew import INTAKE_WATER, KNOWN_START, STARTED, WATER_CLAIM
from tests.support.paths import ROOT

START = datetime(2025, 11, 5, 9, 0, tzinfo=UTC)
# A price table for the known store's models (config/prices.yaml's shape), per million tokens:
# what the usage tests price its calls at. Its currency is not USD, so a figure that assumes
# dollars shows.
PRICES: dict[str, Any] = {
    "currency": "EUR",
    "models": {
        "scripted": {"input": 10_000, "output": 40_000},
        "scripted-judge": {"input": 100_000, "output": 100_000.0},
    },
}

WATER_KNOWN = KNOWN_START
WATER_UNKNOWN = INTAKE_WATER
WRONG_DATE = {**WATER_KNOWN, "date_of_loss": "2025-10-01"}
THEFT = {
    "loss_type": "theft",
    "cause": "forced entry through the back door",
    "date_of_loss": "2025-11-03",
    "damage_start_date": None,
    "amount_claimed": 4200,
    "sources": {
        "loss_type": {"where": "description", "quote": "took a laptop"},
        "cause": {"where": "description", "quote": "forced entry through the back door"},
        "date_of_loss": {"where": "date_of_loss"},
        "amount_claimed": {"where": "amount"},
    },
}
# What the theft claims say, so that THEFT's quotes are in them.
BURGLARY = {"description": "Burglars forced entry through the back door and took a laptop."}


def covered_42b(confidence: float, relied: tuple[str, ...] = ("cause", "damage_start_date")) -> Any:
    return {
        "answer": "covered",
        "confidence": confidence,
        "evidence": [{"clause_id": "4.2(b)", "quote": "sudden and accidental discharge of water"}],
        "facts_relied_on": list(relied),
    }


def excluded_71(confidence: float, relied: tuple[str, ...] = ("cause", "damage_start_date")) -> Any:
    return {
        "answer": "not_covered",
        "confidence": confidence,
        "evidence": [{"clause_id": "7.1", "quote": "continuous or repeated seepage or leakage"}],
        "facts_relied_on": list(relied),
    }


def theft_44a(confidence: float) -> Any:
    return {
        "answer": "covered",
        "confidence": confidence,
        "evidence": [
            {
                "clause_id": "4.4(a)",
                "quote": "theft or attempted theft involving forcible and violent entry",
            }
        ],
        "facts_relied_on": ["cause"],
    }


MADE_UP = {
    "answer": "not_covered",
    "confidence": 0.6,
    "evidence": [{"clause_id": "9.4", "quote": "hail damage to outbuildings"}],
    "facts_relied_on": ["cause"],
}
RULING = AdjudicatorAnswer(
    choice="policy",
    reason="A joint found leaking the next morning is a sudden discharge; 7.1 needs weeks.",
    evidence=["4.2(b)"],
)
NO_REASON = AdjudicatorAnswer(choice="policy", reason="  ", evidence=["4.2(b)"])
UNREADABLE = ParseFailure(reason="not a JSON object: Expecting value", raw="I think covered")
ON_DATES = ("cause", "date_of_loss")

# id: (intake, policy, fraud, adjudicator answer, claim file changes, human review)
KNOWN: dict[str, tuple[Any, Any, Any, Any, dict[str, Any], str | None]] = {
    "R01": (WATER_KNOWN, covered_42b(0.9), covered_42b(0.88), None, {}, None),
    "R02": (THEFT, theft_44a(0.95), theft_44a(0.9), None, BURGLARY, None),
    "R03": (WATER_KNOWN, covered_42b(0.9), MADE_UP, None, {}, None),
    "R04": (WATER_UNKNOWN, covered_42b(0.82), excluded_71(0.7), None, {}, "covered"),
    "R05": (WATER_UNKNOWN, covered_42b(0.82), excluded_71(0.7), None, {}, "not_covered"),
    "R06": (
        WRONG_DATE,
        covered_42b(0.82, ON_DATES),
        excluded_71(0.7, ON_DATES),
        None,
        {},
        "needs_more_evidence",
    ),
    "R07": (WATER_KNOWN, covered_42b(0.82), excluded_71(0.7), RULING, {}, None),
    "R08": (WATER_KNOWN, covered_42b(0.82), excluded_71(0.7), None, {}, "covered"),
    "R09": (WATER_KNOWN, covered_42b(0.82), excluded_71(0.7), NO_REASON, {}, None),
    "R10": (WATER_KNOWN, covered_42b(0.9), UNREADABLE, None, {}, "covered"),
    "R11": (THEFT, theft_44a(0.6), theft_44a(0.6), None, BURGLARY, "covered"),
    "R12": (
        {**THEFT, "amount_claimed": 30000},
        theft_44a(0.95),
        theft_44a(0.95),
        None,
        {**BURGLARY, "amount": 30000},
        "not_covered",
    ),
    "R13": (WATER_KNOWN, covered_42b(0.9), covered_42b(0.9), None, {"policy_id": "XX-NONE"}, None),
}


def loaded_claim(folder: Path, claim_id: str, **changes: Any) -> LoadedClaim:
    """The sample water claim under another id, saying when the leak began (so WATER_KNOWN's
    start date checks out), with any field changed, written to `folder`."""
    data = {**json.loads(WATER_CLAIM.read_text(encoding="utf-8")), "claim_id": claim_id}
    data["description"] = f"{data['description']} {STARTED}"
    data.update(changes)
    raw = json.dumps(data, indent=2).encode("utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{claim_id}.json"
    path.write_bytes(raw)
    return LoadedClaim(path, ClaimFile.model_validate(data), raw, {})


def _parsed(value: Any, model: type[IntakeFacts] | type[Claim]) -> Any:
    return value if isinstance(value, ParseFailure) else model.model_validate(value)


def make_record(
    library: PolicyLibrary,
    loaded: LoadedClaim,
    intake: Any,
    policy: Any,
    fraud: Any,
    adjudicator: AdjudicatorAnswer | None = None,
    seconds: float = 2.0,
) -> ClaimRecord:
    """A reviewed record resolved by the real rules; every cited clause came from the tool."""
    config = load_config(ROOT / "config")
    base: dict[str, Any] = {
        "claim_id": loaded.claim.claim_id,
        "claim_file": str(loaded.path),
        "claim_sha256": loaded.sha256,
        "policy_id": loaded.claim.policy_id,
        "status": "reviewed",
        "started_at": START,
        "finished_at": START + timedelta(seconds=seconds),
    }
    early = policy_checks(loaded.claim, policy_view(library, loaded.claim.policy_id, ()), config)
    if early is not None:  # as the pipeline does: no model is asked
        return ClaimRecord(**{**base, "finished_at": START}, resolution=early)
    facts = _parsed(intake, IntakeFacts)
    sides = {"policy": _parsed(policy, Claim), "fraud": _parsed(fraud, Claim)}
    ledger = [
        LedgerEntry(
            task_id=f"t-{side}",
            task_name=f"{side}_task",
            agent_role=side,
            tool="policy_lookup",
            args={"policy_id": loaded.claim.policy_id},
            returned_clause_ids=[e.clause_id for e in claim.evidence],
        )
        for side, claim in sides.items()
        if isinstance(claim, Claim)
    ]
    case = read_case(
        library, config, loaded.claim, facts, (sides["policy"], sides["fraud"]), ledger
    )
    resolution = resolve(case, config)
    check: AdjudicationCheck | None = None
    calls = {"intake_task": 1, "policy_task": 2, "fraud_task": 1}
    tokens = {"intake_task": 100, "policy_task": 200, "fraud_task": 150}
    models = {"intake": "scripted", "policy": "scripted", "fraud": "scripted"}
    # Four fifths of each task's tokens are prompt: 360 prompt and 90 completion a claim.
    stages = {
        "crew": StageTime(started_at=START, finished_at=START + timedelta(seconds=1.5)),
        "resolver": StageTime(
            started_at=START + timedelta(seconds=1.5), finished_at=START + timedelta(seconds=1.75)
        ),
    }
    if adjudicator is not None:
        resolution, check = apply_adjudication(case, config, resolution, adjudicator)
        calls["adjudicate_task"] = 1
        tokens["adjudicate_task"] = 50
        models["adjudicator"] = "scripted-judge"
        stages["adjudicator"] = StageTime(
            started_at=START + timedelta(seconds=1.75), finished_at=START + timedelta(seconds=2)
        )
    by_task = {
        task: TaskUsage(prompt=n * 4 // 5, completion=n // 5, calls=calls[task])
        for task, n in tokens.items()
    }
    return ClaimRecord(
        **base,
        intake=facts,
        policy=sides["policy"],
        fraud=sides["fraud"],
        raw={"intake_task": "{}", "policy_task": "{}", "fraud_task": "{}"},
        ledger=ledger,
        models=models,
        resolution=resolution,
        adjudication=check,
        model_calls=calls,
        tokens=tokens,
        tokens_by_task=by_task,
        stages=stages,
        policy_sha256=case.view.sha256,
    )


def known_store(library: PolicyLibrary, folder: Path, store: Store | None = None) -> Store:
    """The thirteen decisions of KNOWN, and the human reviews it lists."""
    store = store or Store()
    store.add_reviewer("ana")
    for claim_id, (intake, policy, fraud, ruling, changes, _) in KNOWN.items():
        loaded = loaded_claim(folder, claim_id, **changes)
        store.record(make_record(library, loaded, intake, policy, fraud, ruling), None, loaded)
    for claim_id, (*_, review) in KNOWN.items():
        if review is not None:
            store.decide(claim_id, review, "checked the claim file", "ana", rules=DeskRules())
    return store


def hostile_row() -> ClaimRow:
    """An escalated row whose every outside text would be markup or script if not escaped."""
    side = SideRow(
        ran=True,
        parsed=True,
        answer="covered",
        confidence=0.9,
        clauses=("<b>1</b>",),
        verified=(True,),
    )
    return ClaimRow(
        claim_id="C-1",
        decided_at="2025-11-05T09:00:00.000000Z",
        outcome="ESCALATED",
        rule="conflict",
        answer=None,
        reason_codes=("needs_more_evidence",),
        missing_facts=("damage_start_date",),
        loss_type="<script>alert(1)</script>",
        intake="parsed",
        null_fields=("damage_start_date",),
        disputed_fields=(),
        policy=side,
        fraud=SideRow(ran=True, parsed=True, answer="not_covered", confidence=0.7),
        adjudicator=None,
        review=None,
        escalation_id=1,
        escalation_state="open",
        question='When did "it" <start>?',
    )

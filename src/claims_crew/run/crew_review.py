"""One claim's review: the crew, the resolver, then the cascade's levels; its record.

Each claim is independent: its own crew, its own tool ledger, its own record. Nothing here is
shared between claims but the policy library, which only reads. The record is returned, not
saved: the claim routine (routine.py) records it in one transaction.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from claims_crew.claim_files import LoadedClaim
from claims_crew.crew.crew import ClaimsCrew
from claims_crew.crew.inputs import kickoff_inputs
from claims_crew.crew.ledger import ToolLedger, source_checked
from claims_crew.documents.record import unread_parts
from claims_crew.errors import ClaimsCrewError, ModelError, first_line
from claims_crew.llms.fallback import fallback_note
from claims_crew.llms.providers.errors import (
    causes,
    failure_code,
    failure_message,
    provider_failed,
    retry_after,
    stops_the_batch,
)
from claims_crew.llms.select import LLMFactory
from claims_crew.models import Claim, ParseFailure, parse_claim, parse_intake
from claims_crew.records import ClaimRecord, RunError
from claims_crew.resolver import policy_checks, resolve
from claims_crew.resolver.reread import policy_view, read_case
from claims_crew.run.context import RunContext
from claims_crew.run.levels import ReviewState, walk
from claims_crew.run.photos import claim_photos
from claims_crew.run.stages import StageClock
from claims_crew.settings.redact import redact
from claims_crew.vocabulary import FALLBACK_NOTE, ON_DEMAND_TASKS, TASK_OF, utc_now

logger = logging.getLogger(__name__)


def record_head(loaded: LoadedClaim, started: datetime) -> dict[str, Any]:
    """What every record of a claim file starts with, whatever became of the review."""
    return {
        "claim_id": loaded.claim.claim_id,
        "claim_file": str(loaded.path),
        "claim_sha256": loaded.sha256,
        "policy_id": loaded.claim.policy_id,
        "started_at": started,
    }


def review_claim(loaded: LoadedClaim, settings: RunContext) -> ClaimRecord:
    """Run the crew on one claim, resolve it, and return its record (saved by the caller).

    A policy that is unknown, unreadable or not in force on the loss date is escalated before
    any model is called. After the rules' first word, the cascade's levels run where they apply
    (levels/): intake asked once more when the answers conflict over open facts, a debate round
    when configured, the adjudicator for an interpretation dispute. A claim whose provider
    failed for good is reviewed again on CLAIMS_CREW_FALLBACK_MODEL when set (llms/fallback.py).
    """
    claim = loaded.claim
    base = record_head(loaded, utc_now())
    view = policy_view(settings.library, claim.policy_id, (), claim)
    if (early := policy_checks(claim, view, settings.resolution)) is not None:
        return ClaimRecord(
            **base,
            status="reviewed",
            resolution=early,
            policy_sha256=view.sha256,
            policy_corrections_sha256=view.corrections_sha256,
            finished_at=utc_now(),
        )
    record = _review_on(settings.llm_for, loaded, settings, base)
    if isinstance(record, ClaimRecord):
        return record
    error, failed = record
    if settings.fallback_llm_for is None or not provider_failed(causes(error)):
        return failed
    # The primary provider failed for good: once more, from the start, on the fallback model.
    assert failed.error is not None
    note = fallback_note(failed.error.code, failed.error.message)
    again = _review_on(settings.fallback_llm_for, loaded, settings, base, yaml_models=False)
    decided = again if isinstance(again, ClaimRecord) else again[1]
    decided.models[FALLBACK_NOTE] = note
    return decided


def _review_on(
    llm_for: LLMFactory,
    loaded: LoadedClaim,
    settings: RunContext,
    base: dict[str, Any],
    yaml_models: bool = True,
) -> ClaimRecord | tuple[Exception, ClaimRecord]:
    """The claim reviewed with the agents' models from `llm_for`: its record, or, where the
    crew raised, the error beside the failed record."""
    claim = loaded.claim
    stages = StageClock()
    ledger: ToolLedger | None = None
    try:
        stages.start("crew")
        photos = claim_photos(loaded) if settings.intake_images else {}
        crew = ClaimsCrew(
            claim.policy_id,
            llm_for,
            settings.library,
            settings.config_dir,
            photos,
            yaml_models,
            policy_number=claim.policy_number,
            date_of_loss=claim.date_of_loss,
        )
        spend = settings.rate_limit.spend if settings.rate_limit is not None else None
        ledger = ToolLedger({str(t.id) for t in crew.all_tasks()}, spend)
        with ledger.listening():  # every level's model calls and tool calls too
            state = _first_word(crew, ledger, loaded, settings, stages)
            walk(state, stages)
    except ClaimsCrewError as exc:
        code = "model" if isinstance(exc, ModelError) else "config"
        return _failed(base, code, redact(str(exc)), ledger)
    except Exception as exc:  # a model or network failure must not stop the batch
        code = failure_code(exc)
        if code == "crew_failed":
            # Not a provider's fault we can name: the traceback goes to the claim's log
            # (claim_log.py), where whoever reports it can find it.
            logger.error("%s: the review failed", claim.claim_id, exc_info=exc)
        if code == "rate_limited" and settings.rate_limit is not None:
            # Still 429 after the client's retries: every process on the cap holds off, not
            # only this one, for as long as the provider asked, else one window.
            settings.rate_limit.hold_off(retry_after(exc) or settings.rate_limit.window_s)
        message = failure_message(exc)
        if stops_the_batch(code):  # every claim would meet it: no further claim starts
            settings.batch_stop.stop(claim.claim_id, code, first_line(message))
        return exc, _failed(base, code, message, ledger)
    return _reviewed(base, state, stages)


def _first_word(
    crew: ClaimsCrew,
    ledger: ToolLedger,
    loaded: LoadedClaim,
    settings: RunContext,
    stages: StageClock,
) -> ReviewState:
    """Intake, then policy and fraud side by side; their answers parsed (source_checked from
    the tool ledger, never from the model) and resolved by the rules."""
    claim, rules = loaded.claim, settings.resolution
    inputs = kickoff_inputs(loaded, rules.allowed_answers, dispute="")
    tasks = {t.name or "": t for t in crew.all_tasks()}
    crew.review(inputs)  # intake, then policy and fraud side by side
    raw = {
        name: (t.output.raw if t.output else "")
        for name, t in tasks.items()
        if name not in ON_DEMAND_TASKS
    }
    stages.start("resolver")

    def reviewer(name: str) -> Claim | ParseFailure:
        parsed = parse_claim(raw[name], rules.allowed_answers)
        if isinstance(parsed, Claim):
            parsed.source_checked = source_checked(parsed, ledger.returned_to(str(tasks[name].id)))
        return parsed

    intake = parse_intake(raw[TASK_OF["intake"]])
    policy, fraud = reviewer(TASK_OF["policy"]), reviewer(TASK_OF["fraud"])
    case = read_case(
        settings.library,
        rules,
        claim,
        intake,
        (policy, fraud),
        ledger.entries,
        loaded.attachments,
        pages=loaded.pages(),
        unread=unread_parts(loaded.documents),
    )
    resolution = resolve(case, rules)
    stages.stop()
    return ReviewState(
        crew,
        inputs,
        ledger,
        settings.library,
        rules,
        first=case,
        case=case,
        resolution=resolution,
        raw=raw,
    )


def _reviewed(base: dict[str, Any], state: ReviewState, stages: StageClock) -> ClaimRecord:
    ledger, case, first = state.ledger, state.case, state.first
    return ClaimRecord(
        **base,
        status="reviewed",
        intake=first.facts,
        policy=first.policy,
        fraud=first.fraud,
        raw=state.raw,
        ledger=ledger.entries,
        models=dict(state.crew.models),
        resolution=state.resolution,
        adjudication=state.adjudication,
        model_calls=ledger.model_calls,
        tokens=ledger.tokens,
        tokens_by_task=ledger.usage,
        stages=stages.times,
        policy_sha256=case.view.sha256,
        policy_corrections_sha256=case.view.corrections_sha256,
        finished_at=utc_now(),
    )


def _failed(
    base: dict[str, Any], code: str, message: str, ledger: ToolLedger | None = None
) -> ClaimRecord:
    """A failed attempt, with the model calls it made before it failed: the provider received
    them, and may bill them."""
    used = (
        {}
        if ledger is None
        else {
            "model_calls": ledger.model_calls,
            "tokens": ledger.tokens,
            "tokens_by_task": ledger.usage,
        }
    )
    return ClaimRecord(
        **base,
        **used,
        status="failed",
        finished_at=utc_now(),
        error=RunError(code=code, message=message),
    )

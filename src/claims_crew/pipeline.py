"""One claim through the crew, and a batch of claims with bounded concurrency.

Each claim is independent: its own crew, its own tool ledger, its own record. Nothing here is
shared between claims but the policy library, which only reads, and the decision store, which
writes each claim's whole result in one transaction (store.py).

A claim gets until its deadline (limits.py); past it, the claim is recorded as failed with code
`timeout` and the batch goes on, while the abandoned review can no longer call a model or reach
the store (deadline.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from claims_crew.claim_files import LoadedClaim, claim_ids, load_claim
from claims_crew.config_hash import config_sha256
from claims_crew.crew.adjudicator import adjudicate
from claims_crew.crew.crew import ClaimsCrew
from claims_crew.crew.debate import hold_round
from claims_crew.crew.generic_models import share_generic_models
from claims_crew.crew.ledger import ToolLedger, source_checked
from claims_crew.crew.targeted import ask_for_evidence
from claims_crew.deadline import run_within
from claims_crew.errors import ClaimFileError, ClaimsCrewError, ModelError
from claims_crew.limits import Limits
from claims_crew.llms.cutoff import model_calls_until
from claims_crew.llms.rate_limit import RateLimit
from claims_crew.llms.select import LLMFactory
from claims_crew.models import Claim, ParseFailure, parse_claim, parse_intake
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord, RunError
from claims_crew.resolver import Case, cited_clauses, policy_checks, resolve
from claims_crew.resolver.config import ResolutionConfig, load_config
from claims_crew.resolver.debate import wants_debate
from claims_crew.resolver.reread import policy_view
from claims_crew.resolver.targeted import facts_to_ask
from claims_crew.stages import StageClock
from claims_crew.store import Store, Triage, lease_holder
from claims_crew.store.leases import LEASE_SECONDS
from claims_crew.store.recording import Basis
from claims_crew.vocabulary import (
    ADJUDICATE_TASK,
    KICKOFF_INPUTS,
    ON_DEMAND_TASKS,
    REBUTTAL_TASK_OF,
    TARGETED_TASK,
    TASK_OF,
    ClaimFileProblem,
    utc_now,
)


@dataclass(frozen=True)
class Settings:
    """What every claim of a run shares. The rules come from config_dir/resolution.yaml."""

    library: PolicyLibrary
    llm_for: LLMFactory
    config_dir: Path | None = None
    rules: ResolutionConfig | None = None
    store: Store = field(default_factory=Store)  # $CLAIMS_CREW_HOME/claims.sqlite
    limits: Limits = field(default_factory=Limits.from_environment)
    # One for the run, shared by every claim's model calls; built from `limits` when not given.
    rate_limit: RateLimit | None = None
    # The hash of the config files as the run loaded them, recorded with every decision.
    config_sha256: str = ""

    def __post_init__(self) -> None:
        if self.rules is None:  # loaded and validated once, before any claim is run
            object.__setattr__(self, "rules", load_config(self.config_dir))
        if not self.config_sha256:
            object.__setattr__(self, "config_sha256", config_sha256(self.config_dir))
        if self.rate_limit is None and self.limits.max_rpm is not None:
            limit = RateLimit(self.limits.max_rpm, self.limits.rate_window_s)
            object.__setattr__(self, "rate_limit", limit)

    @property
    def resolution(self) -> ResolutionConfig:
        assert self.rules is not None
        return self.rules

    def basis(self, record: ClaimRecord, loaded: LoadedClaim) -> Basis:
        """What a decision from `record` stands on: this run's config, and its expiry rule."""
        outcome = record.resolution.outcome if record.resolution is not None else ""
        valid_for = self.resolution.expiry.valid_for(outcome, loaded.claim.risk_class)
        return Basis(self.config_sha256, valid_for)


def kickoff_inputs(
    loaded: LoadedClaim, allowed_answers: tuple[str, ...], dispute: str, question: str = ""
) -> dict[str, str]:
    """The inputs a run gives crew.kickoff for this claim (the adjudicator adds its dispute,
    the targeted question its question)."""
    claim = loaded.claim
    inputs = {
        "claim_id": claim.claim_id,
        "policy_id": claim.policy_id,
        "claim_text": loaded.as_text(),
        "allowed_answers": ", ".join(allowed_answers),
        "dispute": dispute,
        "question": question,
        "other_claim": "",
    }
    assert inputs.keys() == KICKOFF_INPUTS.keys(), "kickoff inputs and KICKOFF_INPUTS differ"
    return inputs


def _record_head(loaded: LoadedClaim, started: datetime) -> dict[str, Any]:
    """What every record of a claim file starts with, whatever became of the review."""
    return {
        "claim_id": loaded.claim.claim_id,
        "claim_file": str(loaded.path),
        "claim_sha256": loaded.sha256,
        "policy_id": loaded.claim.policy_id,
        "started_at": started,
    }


def review_claim(loaded: LoadedClaim, settings: Settings) -> ClaimRecord:
    """Run the crew on one claim, resolve it, and return its record (saved by the caller).

    A policy that is unknown, unreadable or not in force on the loss date is escalated before
    any model is called. Intake is asked once more only when the agents' answers conflict over
    open facts (resolution.yaml: targeted_evidence), and the adjudicator only when the rules
    find a dispute.
    """
    claim = loaded.claim
    rules = settings.resolution
    started = utc_now()
    base = _record_head(loaded, started)
    view = policy_view(settings.library, claim.policy_id, ())
    if (early := policy_checks(claim, view, rules)) is not None:
        return ClaimRecord(
            **base,
            status="reviewed",
            resolution=early,
            policy_sha256=view.sha256,
            policy_corrections_sha256=view.corrections_sha256,
            finished_at=utc_now(),
        )
    inputs = kickoff_inputs(loaded, rules.allowed_answers, dispute="")
    stages = StageClock()
    try:
        stages.start("crew")
        claims_crew = ClaimsCrew(
            claim.policy_id, settings.llm_for, settings.library, settings.config_dir
        )
        tasks = {t.name or "": t for t in claims_crew.all_tasks()}
        ledger = ToolLedger({str(t.id) for t in tasks.values()})
        with ledger.listening():
            claims_crew.review(inputs)  # intake, then policy and fraud side by side
            raw = {
                name: (t.output.raw if t.output else "")
                for name, t in tasks.items()
                if name not in ON_DEMAND_TASKS
            }
            stages.start("resolver")

            def reviewer(name: str) -> Claim | ParseFailure:
                parsed = parse_claim(raw[name], rules.allowed_answers)
                if isinstance(parsed, Claim):
                    returned = ledger.returned_to(str(tasks[name].id))
                    parsed.source_checked = source_checked(parsed, returned)
                return parsed

            intake, policy, fraud = (
                parse_intake(raw[TASK_OF["intake"]]),
                reviewer(TASK_OF["policy"]),
                reviewer(TASK_OF["fraud"]),
            )
            view = policy_view(settings.library, claim.policy_id, cited_clauses(policy, fraud))
            case = Case(claim, intake, policy, fraud, ledger.entries, view, loaded.attachments)
            resolution = resolve(case, rules)
            stages.stop()
            if asked := facts_to_ask(resolution, rules):  # level 1: one question to intake
                stages.start("targeted_evidence")
                raw[TARGETED_TASK], case, resolution = ask_for_evidence(
                    claims_crew, inputs, case, rules, resolution, asked
                )
                stages.stop()
            if wants_debate(resolution, rules):  # one round: each side sees the other's claim
                stages.start("debate")
                said, case, resolution = hold_round(
                    claims_crew, inputs, case, rules, resolution, settings.library, ledger
                )
                raw.update({REBUTTAL_TASK_OF[side]: text for side, text in said.items()})
                stages.stop()
            adjudication = None
            if resolution.outcome == "ADJUDICATION_REQUIRED" and rules.adjudication.enabled:
                stages.start("adjudicator")
                raw[ADJUDICATE_TASK], resolution, adjudication = adjudicate(
                    claims_crew, inputs, case, rules, resolution
                )
                stages.stop()
    except ClaimsCrewError as exc:
        return ClaimRecord(
            **base,
            status="failed",
            finished_at=utc_now(),
            error=RunError(
                code="model" if isinstance(exc, ModelError) else "config", message=str(exc)
            ),
        )
    except Exception as exc:  # a model or network failure must not stop the batch
        return ClaimRecord(
            **base,
            status="failed",
            finished_at=utc_now(),
            error=RunError(
                code=_failure_code(exc),
                message=f"{type(exc).__name__}: {exc}",
            ),
        )
    return ClaimRecord(
        **base,
        status="reviewed",
        intake=intake,
        policy=policy,
        fraud=fraud,
        raw=raw,
        ledger=ledger.entries,
        models=dict(claims_crew.models),
        resolution=resolution,
        adjudication=adjudication,
        model_calls=ledger.model_calls,
        tokens=ledger.tokens,
        tokens_by_task=ledger.usage,
        stages=stages.times,
        policy_sha256=case.view.sha256,
        policy_corrections_sha256=case.view.corrections_sha256,
        finished_at=utc_now(),
    )


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _failure_code(exc: BaseException) -> str:
    """`timeout` when a model call gave up waiting (the clients' timeout errors all stem from a
    socket's); `rate_limited` when the provider still answered 429 after the client's retries
    (every provider's SDK puts the HTTP status on its error); else `crew_failed`. All three
    leave the claim for the next run."""
    causes = list(_causes(exc))
    if any(isinstance(cause, TimeoutError) for cause in causes):
        return "timeout"
    if any(getattr(cause, "status_code", None) == 429 for cause in causes):
        return "rate_limited"
    return "crew_failed"


def review_in_time(loaded: LoadedClaim, settings: Settings) -> ClaimRecord:
    """review_claim, given until the claim's deadline; past it, a failed record with code
    `timeout`, and the abandoned review makes no further model call."""
    started = utc_now()
    seconds = settings.limits.claim_deadline_s

    def review(stop: threading.Event) -> ClaimRecord:
        with model_calls_until(stop, settings.rate_limit):
            return review_claim(loaded, settings)

    # In this thread's own context, which run_within copies: the claims this thread reviews
    # then share one cache of pydantic's generic models (crew/generic_models.py).
    share_generic_models()
    record = run_within(seconds, review, name=f"review {loaded.claim.claim_id}")
    if record is not None:
        return record
    return ClaimRecord(
        **_record_head(loaded, started),
        status="failed",
        finished_at=utc_now(),
        error=RunError(
            code="timeout",
            message=f"no result within {seconds:g} s (CLAIMS_CREW_CLAIM_DEADLINE); "
            "the next run retries it",
        ),
    )


@dataclass(frozen=True)
class BatchItem:
    """A claim file's outcome in a batch: its record, or why its file could not be read."""

    path: Path
    record: ClaimRecord | None
    error: str | None = None
    busy: bool = False  # another process is reviewing it: not a failure, and not ours to do
    code: ClaimFileProblem | None = None  # why the file was refused, with `error`

    @classmethod
    def refused(cls, path: Path, exc: ClaimFileError) -> BatchItem:
        return cls(path, None, str(exc), code=exc.code)

    @property
    def ok(self) -> bool:
        return self.busy or (self.record is not None and self.record.status == "reviewed")


def process_file(path: Path, settings: Settings, run_id: int | None = None) -> BatchItem:
    try:
        loaded = load_claim(path)
    except ClaimFileError as exc:
        return BatchItem.refused(path, exc)
    claim_id = loaded.claim.claim_id
    holder = lease_holder()
    deadline = settings.limits.claim_deadline_s
    # Held past the claim's deadline, so another process never takes a claim still under way.
    seconds = max(LEASE_SECONDS, deadline + 60) if deadline is not None else LEASE_SECONDS
    if not settings.store.lease(claim_id, holder, seconds):
        return BatchItem(path, None, "being reviewed by another process", busy=True)
    try:
        if settings.store.triage(loaded) != "todo":
            # Decided since the batch was planned (another process): never ask a model twice.
            settings.store.finish_claim(claim_id)
            return BatchItem(path, settings.store.claim_record(claim_id))
        record = review_in_time(loaded, settings)
        settings.store.record(record, run_id, loaded, settings.basis(record, loaded))
        # Its queue item (the run ingested it) is done: no worker is to take it now.
        settings.store.finish_claim(claim_id)
    finally:
        settings.store.release(claim_id, holder)
    return BatchItem(path, record)


def triage(paths: Sequence[Path], settings: Settings) -> dict[Path, Triage]:
    """Each reviewable claim file's state in the store; a file changed after its decision is
    flagged there (changed_after_decision) and is not decided again. A file that cannot be read,
    or shares its claim id with another file, has no state: it stays, to be reported."""
    states: dict[Path, Triage] = {}
    for path, claim_id in claim_ids(paths).items():
        if isinstance(claim_id, ClaimFileError):
            continue
        try:
            loaded = load_claim(path)
        except ClaimFileError:  # changed since it was read a moment ago: reported by the batch
            continue
        states[path] = settings.store.triage(loaded)
    return states


def pending(paths: Sequence[Path], settings: Settings) -> list[Path]:
    """Claim files with no decision yet; files that cannot be reviewed stay, to be reported."""
    states = triage(paths, settings)
    return [p for p in paths if states.get(p, "todo") == "todo"]


def run_batch(
    paths: Sequence[Path],
    settings: Settings,
    concurrency: int = 1,
    on_done: Callable[[BatchItem], None] | None = None,
    on_start: Callable[[Path], None] | None = None,
) -> list[BatchItem]:
    """Review claim files, at most `concurrency` at a time; results in the order given.

    `on_start` hears of each file as its review begins, `on_done` as it ends, so a display can
    show what is still under way. A file that cannot be reviewed (claim_files.claim_ids: bad,
    or sharing its claim id with another file given) gets an item saying why, and no model
    call. The run is recorded in the store; one killed halfway keeps no finish time.
    """
    run_id = settings.store.start_run(f"{len(paths)} claim file(s), concurrency {concurrency}")
    done: dict[Path, BatchItem] = {}
    refused = {p: e for p, e in claim_ids(paths).items() if isinstance(e, ClaimFileError)}

    def one(path: Path) -> BatchItem:
        if on_start is not None:
            on_start(path)
        if path in refused:
            return BatchItem.refused(path, refused[path])
        return process_file(path, settings, run_id)

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {pool.submit(one, p): p for p in paths}
        for future in as_completed(futures):
            item = future.result()
            done[futures[future]] = item
            if on_done is not None:
                on_done(item)
    settings.store.finish_run(run_id)
    return [done[p] for p in paths]

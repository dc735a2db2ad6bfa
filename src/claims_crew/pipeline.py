"""One claim through the crew, and a batch of claims with bounded concurrency.

Each claim is independent: its own crew, its own tool ledger, its own record. Nothing here is
shared between claims but the policy library, which only reads.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from claims_crew import records
from claims_crew.claim_files import LoadedClaim, load_claim
from claims_crew.crew import ClaimsCrew
from claims_crew.errors import ClaimFileError, ClaimsCrewError, ModelError
from claims_crew.llm import LLMFactory
from claims_crew.models import Claim, ParseFailure, parse_claim, parse_intake
from claims_crew.policy.library import PolicyLibrary
from claims_crew.provenance import ToolLedger, source_checked
from claims_crew.records import ClaimRecord, RunError

ALLOWED_ANSWERS: tuple[str, ...] = ("covered", "not_covered")


@dataclass(frozen=True)
class Settings:
    """What every claim of a run shares."""

    library: PolicyLibrary
    llm_for: LLMFactory
    results: Path
    config_dir: Path | None = None
    allowed_answers: tuple[str, ...] = ALLOWED_ANSWERS


def _now() -> datetime:
    return datetime.now(UTC)


def review_claim(loaded: LoadedClaim, settings: Settings) -> ClaimRecord:
    """Run the crew on one claim and return its record (saved by the caller)."""
    claim = loaded.claim
    started = _now()
    base = {
        "claim_id": claim.claim_id,
        "claim_file": str(loaded.path),
        "claim_sha256": hashlib.sha256(loaded.raw).hexdigest(),
        "policy_id": claim.policy_id,
        "started_at": started,
    }
    if claim.policy_id not in settings.library.entries:
        return ClaimRecord(
            **base,
            status="failed",
            finished_at=_now(),
            error=RunError(
                code="policy_not_found",
                message=f"policy {claim.policy_id!r} is not in policies/index.yaml",
            ),
        )
    try:
        claims_crew = ClaimsCrew(
            claim.policy_id, settings.llm_for, settings.library, settings.config_dir
        )
        crew = claims_crew.crew()
        tasks = {t.name or "": t for t in crew.tasks}
        ledger = ToolLedger({str(t.id) for t in crew.tasks})
        with ledger.listening():
            crew.kickoff(
                inputs={
                    "claim_id": claim.claim_id,
                    "policy_id": claim.policy_id,
                    "claim_text": loaded.as_text(),
                    "allowed_answers": ", ".join(settings.allowed_answers),
                    "dispute": "",
                }
            )
    except ClaimsCrewError as exc:
        return ClaimRecord(
            **base,
            status="failed",
            finished_at=_now(),
            error=RunError(
                code="model" if isinstance(exc, ModelError) else "config", message=str(exc)
            ),
        )
    except Exception as exc:  # a model or network failure must not stop the batch
        return ClaimRecord(
            **base,
            status="failed",
            finished_at=_now(),
            error=RunError(code="crew_failed", message=f"{type(exc).__name__}: {exc}"),
        )
    raw = {name: (t.output.raw if t.output else "") for name, t in tasks.items()}

    def reviewer(name: str) -> Claim | ParseFailure:
        parsed = parse_claim(raw[name], settings.allowed_answers)
        if isinstance(parsed, Claim):
            parsed.source_checked = source_checked(parsed, ledger.returned_to(str(tasks[name].id)))
        return parsed

    return ClaimRecord(
        **base,
        status="reviewed",
        intake=parse_intake(raw["intake_task"]),
        policy=reviewer("policy_task"),
        fraud=reviewer("fraud_task"),
        raw=raw,
        ledger=ledger.entries,
        models={a.role: str(getattr(a.llm, "model", a.llm)) for a in crew.agents},
        finished_at=_now(),
    )


@dataclass(frozen=True)
class BatchItem:
    """A claim file's outcome in a batch: its record, or why its file could not be read."""

    path: Path
    record: ClaimRecord | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.record is not None and self.record.status == "reviewed"


def process_file(path: Path, settings: Settings) -> BatchItem:
    try:
        loaded = load_claim(path)
    except ClaimFileError as exc:
        return BatchItem(path, None, str(exc))
    record = review_claim(loaded, settings)
    records.save(settings.results, record)
    return BatchItem(path, record)


def pending(paths: Sequence[Path], settings: Settings) -> list[Path]:
    """Claim files with no reviewed record yet; unreadable files stay, to be reported."""
    todo = []
    for path in paths:
        try:
            claim_id = load_claim(path).claim.claim_id
        except ClaimFileError:
            todo.append(path)
            continue
        if not records.is_reviewed(settings.results, claim_id):
            todo.append(path)
    return todo


def run_batch(
    paths: Sequence[Path],
    settings: Settings,
    concurrency: int = 1,
    on_done: Callable[[BatchItem], None] | None = None,
) -> list[BatchItem]:
    """Review claim files, at most `concurrency` at a time; results in the order given."""
    done: dict[Path, BatchItem] = {}
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {pool.submit(process_file, p, settings): p for p in paths}
        for future in as_completed(futures):
            item = future.result()
            done[futures[future]] = item
            if on_done is not None:
                on_done(item)
    return [done[p] for p in paths]

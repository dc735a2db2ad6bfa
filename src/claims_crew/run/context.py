"""What every claim of a run shares: the policies, the models, the rules, the store, the limits;
built, every part loaded once, by `build_context`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from claims_crew.claim_files import LoadedClaim
from claims_crew.desk import load_desk
from claims_crew.desk.assignment import Assigner, Step
from claims_crew.desk.clocks import ClockTable, clock_start, deadlines, load_clocks
from claims_crew.llms.fallback import fallback_factory, fallback_model
from claims_crew.llms.rate_limit import RateLimit, rate_limit_for
from claims_crew.llms.select import LLMFactory
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.resolver.config import ResolutionConfig, load_config
from claims_crew.run.batch_stop import BatchStop
from claims_crew.run.config_hash import config_sha256
from claims_crew.run.photos import intake_images_from_environment
from claims_crew.settings import Limits
from claims_crew.store import Basis, Store


@dataclass(frozen=True)
class RunContext:
    """What every claim of a run shares, every part loaded: `build_context` makes it."""

    library: PolicyLibrary
    llm_for: LLMFactory
    config_dir: Path | None
    rules: ResolutionConfig
    store: Store  # CLAIMS_CREW_DATABASE_URL, else SQLite at home
    limits: Limits
    # One for the run, shared by every claim's model calls (and on PostgreSQL by every process
    # on the store); None: no cap.
    rate_limit: RateLimit | None
    # Every agent on CLAIMS_CREW_FALLBACK_MODEL, for a claim whose provider failed for good
    # (llms/fallback.py); None when it is unset.
    fallback_llm_for: LLMFactory | None
    # The hash of the config files as the run loaded them, recorded with every decision.
    config_sha256: str
    # config/desk.yaml's assignment rule, read once with the rest of the config.
    assign_by: tuple[Step, ...]
    # The desk's clocks (config_dir/clocks.yaml).
    clocks: ClockTable
    # Photos shown to the intake agent as images too (CLAIMS_CREW_INTAKE_IMAGES; crew/images.py).
    intake_images: bool
    # Set by the first claim whose provider refused the key, the permission or the model.
    batch_stop: BatchStop = field(default_factory=BatchStop)

    @property
    def resolution(self) -> ResolutionConfig:
        return self.rules

    def basis(self, record: ClaimRecord, loaded: LoadedClaim) -> Basis:
        """What a decision from `record` stands on: this run's config, its expiry rule, and the
        desk's deadlines should it escalate (from the day the claim was reported; a sample
        claim's from the day the store first received it)."""
        outcome = record.resolution.outcome if record.resolution is not None else ""
        valid_for = self.resolution.expiry.valid_for(outcome, loaded.claim.risk_class)
        claim = loaded.claim
        received = self.store.first_received(claim.claim_id) if claim.sample else None
        started = clock_start(claim.date_reported, claim.sample, received)
        clock = deadlines(self.clocks, started, claim.jurisdiction)
        return Basis(
            self.config_sha256,
            valid_for,
            clock,
            line=self.line_of(record.policy_id),
            assign=Assigner(self.assign_by),
        )

    def line_of(self, policy_id: str) -> str | None:
        """The policy's line of business (policies/index.yaml), which escalations go by."""
        entry = self.library.entries.get(policy_id)
        return entry.line if entry is not None else None


def build_context(
    library: PolicyLibrary,
    llm_for: LLMFactory,
    config_dir: Path | None = None,
    store: Store | None = None,
    *,
    limits: Limits | None = None,
    rate_limit: RateLimit | None = None,
) -> RunContext:
    """A run's context, each part loaded once, before any claim is run: the rules, the desk's
    assignment and clocks and the config's hash from `config_dir`; the limits, the fallback
    model and whether photos go to the intake agent from the settings; the rate limit from the
    limits (on the store: shared by every process on PostgreSQL). `limits` and `rate_limit`,
    when given, are used as they are (tests give tight ones)."""
    store = store if store is not None else Store()
    limits = limits if limits is not None else Limits.from_environment()
    if rate_limit is None and (limits.max_rpm or limits.max_tpm) is not None:
        rate_limit = rate_limit_for(
            store, limits.max_rpm, limits.rate_window_s, limits.max_tpm, limits.rate_margin_s
        )
    fallback = fallback_model()
    return RunContext(
        library=library,
        llm_for=llm_for,
        config_dir=config_dir,
        rules=load_config(config_dir),
        store=store,
        limits=limits,
        rate_limit=rate_limit,
        fallback_llm_for=fallback_factory(fallback, limits) if fallback is not None else None,
        config_sha256=config_sha256(config_dir),
        assign_by=tuple(load_desk(config_dir).assignment.steps),
        clocks=load_clocks(config_dir),
        intake_images=intake_images_from_environment(),
    )

"""What every claim of a run shares: the policies, the models, the rules, the store, the limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from claims_crew.claim_files import LoadedClaim
from claims_crew.desk import load_desk
from claims_crew.desk.assignment import Assigner, Step
from claims_crew.desk.clocks import ClockTable, deadlines, load_clocks
from claims_crew.llms.fallback import fallback_factory, fallback_model
from claims_crew.llms.rate_limit import RateLimit, rate_limit_for
from claims_crew.llms.select import LLMFactory
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.resolver.config import ResolutionConfig, load_config
from claims_crew.run.batch_stop import BatchStop
from claims_crew.run.config_hash import config_sha256
from claims_crew.run.limits import Limits
from claims_crew.run.photos import intake_images_from_environment
from claims_crew.store import Basis, Store


@dataclass(frozen=True)
class Settings:
    """What every claim of a run shares. The rules come from config_dir/resolution.yaml."""

    library: PolicyLibrary
    llm_for: LLMFactory
    config_dir: Path | None = None
    rules: ResolutionConfig | None = None
    store: Store = field(default_factory=Store)  # CLAIMS_CREW_DATABASE_URL, else SQLite at home
    limits: Limits = field(default_factory=Limits.from_environment)
    # One for the run, shared by every claim's model calls (and on PostgreSQL by every process
    # on the store); built from `limits` when not given.
    rate_limit: RateLimit | None = None
    # Set by the first claim whose provider refused the key, the permission or the model.
    batch_stop: BatchStop = field(default_factory=BatchStop)
    # Every agent on CLAIMS_CREW_FALLBACK_MODEL, for a claim whose provider failed for good
    # (llms/fallback.py); built from the environment when not given, None when it is unset.
    fallback_llm_for: LLMFactory | None = None
    # The hash of the config files as the run loaded them, recorded with every decision.
    config_sha256: str = ""
    # config/desk.yaml's assignment rule, read once with the rest of the config.
    assign_by: tuple[Step, ...] = ()
    # The desk's clocks (config_dir/clocks.yaml), loaded with the rules when not given.
    clocks: ClockTable | None = None
    # Photos shown to the intake agent as images too (CLAIMS_CREW_INTAKE_IMAGES; crew/images.py).
    intake_images: bool = field(default_factory=intake_images_from_environment)

    def __post_init__(self) -> None:
        if self.rules is None:  # loaded and validated once, before any claim is run
            object.__setattr__(self, "rules", load_config(self.config_dir))
        if not self.assign_by:
            steps = tuple(load_desk(self.config_dir).assignment.steps)
            object.__setattr__(self, "assign_by", steps)
        if self.clocks is None:
            object.__setattr__(self, "clocks", load_clocks(self.config_dir))
        if not self.config_sha256:
            object.__setattr__(self, "config_sha256", config_sha256(self.config_dir))
        limits = self.limits
        if self.rate_limit is None and (limits.max_rpm or limits.max_tpm) is not None:
            limit = rate_limit_for(
                self.store,
                limits.max_rpm,
                limits.rate_window_s,
                limits.max_tpm,
                limits.rate_margin_s,
            )
            object.__setattr__(self, "rate_limit", limit)
        if self.fallback_llm_for is None and (model := fallback_model()) is not None:
            object.__setattr__(self, "fallback_llm_for", fallback_factory(model, self.limits))

    @property
    def resolution(self) -> ResolutionConfig:
        assert self.rules is not None
        return self.rules

    def basis(self, record: ClaimRecord, loaded: LoadedClaim) -> Basis:
        """What a decision from `record` stands on: this run's config, its expiry rule, and the
        desk's deadlines should it escalate (from the day the claim was reported)."""
        outcome = record.resolution.outcome if record.resolution is not None else ""
        valid_for = self.resolution.expiry.valid_for(outcome, loaded.claim.risk_class)
        assert self.clocks is not None
        claim = loaded.claim
        clock = deadlines(self.clocks, claim.date_reported, claim.jurisdiction)
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

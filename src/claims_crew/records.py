"""What a crew run leaves behind for one claim: the record the decision store keeps whole.

One ClaimRecord per attempt: what each agent said (raw and parsed), the tool ledger, the
resolution and, for a dispute, the adjudicator's checked answer. store.py writes it in one
transaction, so a run killed halfway leaves either the whole record or none.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from claims_crew.llms.redact import redact
from claims_crew.models import Claim, IntakeFacts, LedgerEntry, ParseFailure
from claims_crew.resolver import AdjudicationCheck, Resolution
from claims_crew.vocabulary import Stage


class RunError(BaseModel):
    """Why an attempt failed. The message is redacted as it is made (llms/redact.py): a
    provider's error may quote the key it was sent, and this text is printed and stored."""

    code: str
    message: str

    @field_validator("message")
    @classmethod
    def _no_secrets(cls, message: str) -> str:
        return redact(message)


class TaskUsage(BaseModel):
    """One task's model calls in one claim and the tokens the model reported for them."""

    prompt: int = Field(0, description="Prompt (input) tokens, as the provider counted them.")
    completion: int = Field(0, description="Completion (output) tokens.")
    calls: int = Field(0, description="Model calls the task made.")

    @property
    def total(self) -> int:
        return self.prompt + self.completion


class StageTime(BaseModel):
    """When one stage of a claim's review started and ended."""

    started_at: datetime
    finished_at: datetime

    @property
    def seconds(self) -> float:
        return (self.finished_at - self.started_at).total_seconds()


class ClaimRecord(BaseModel):
    """One claim through the crew: what each agent said, parsed, and what the tool returned."""

    claim_id: str
    claim_file: str
    claim_sha256: str
    policy_id: str
    status: Literal["reviewed", "failed"]
    error: RunError | None = None
    intake: IntakeFacts | ParseFailure | None = None
    policy: Claim | ParseFailure | None = None
    fraud: Claim | ParseFailure | None = None
    raw: dict[str, str] = Field(default_factory=dict, description="Task name → model's text.")
    ledger: list[LedgerEntry] = Field(default_factory=list)
    models: dict[str, str] = Field(
        default_factory=dict, description="Agent name (intake, policy, fraud, adjudicator) → model."
    )
    resolution: Resolution | None = Field(None, description="What the resolver decided.")
    adjudication: AdjudicationCheck | None = Field(
        None, description="The adjudicator's answer and its checks, when it was asked."
    )
    model_calls: dict[str, int] = Field(
        default_factory=dict, description="Task name → model calls made for this claim."
    )
    tokens: dict[str, int] = Field(
        default_factory=dict, description="Task name → prompt plus completion tokens."
    )
    tokens_by_task: dict[str, TaskUsage] = Field(
        default_factory=dict,
        description="Task name → prompt and completion tokens and calls, from CrewAI's events.",
    )
    stages: dict[Stage, StageTime] = Field(
        default_factory=dict, description="The stages this review went through, stamped."
    )
    policy_sha256: str | None = None
    policy_corrections_sha256: str | None = Field(
        None, description="Hash of the kind corrections in policies/index.yaml the policy had."
    )
    started_at: datetime
    finished_at: datetime

    @property
    def seconds(self) -> float:
        return (self.finished_at - self.started_at).total_seconds()

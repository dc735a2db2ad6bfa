"""The shared words: outcomes, sides, rules, reason codes, decisions, agents, tasks, time stamps.

Defined once, here, and imported everywhere else, so the resolver, the store, the report and the
review views cannot drift apart. Nothing here imports CrewAI, the store or any other part of
claims-crew: every module may depend on this one.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, Literal, get_args

# ---- outcomes ------------------------------------------------------------------------------

# In the order every view lists them: decided without a person first, then waiting for one.
Outcome = Literal["ACCEPTED", "PREFERRED", "ADJUDICATED", "ADJUDICATION_REQUIRED", "ESCALATED"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
# Decided by the rules alone.
AUTOMATIC_OUTCOMES: tuple[Outcome, ...] = ("ACCEPTED", "PREFERRED")
# Decided without a person: the rules, or the adjudicator's checked reading.
DECIDED_OUTCOMES: tuple[Outcome, ...] = ("ACCEPTED", "PREFERRED", "ADJUDICATED")
# Waiting for a person: escalated, or a dispute nobody adjudicated.
OPEN_OUTCOMES: tuple[Outcome, ...] = ("ESCALATED", "ADJUDICATION_REQUIRED")

# The answers a reviewer may give unless config/resolution.yaml says otherwise.
DEFAULT_ANSWERS: tuple[str, ...] = ("covered", "not_covered")

# The answer of an agent that cannot tell, when resolution.yaml lists it among the allowed
# answers. It is never a decision: an abstaining side never wins, and it says why, in one of
# the typed reasons below (the same words the resolver uses when it asks a person).
ABSTENTION = "uncertain"
AbstainReason = Literal["needs_more_evidence", "interpretation_unresolved"]
ABSTAIN_REASONS: tuple[AbstainReason, ...] = get_args(AbstainReason)

# ---- the two reviewing sides and the adjudicator --------------------------------------------

Side = Literal["policy", "fraud"]
SIDES: tuple[Side, ...] = get_args(Side)
# The key of a record's models (agent → model) that says the claim was decided on the fallback
# model after its own provider failed for good, and why (llms/fallback.py).
FALLBACK_NOTE = "fallback"

AdjudicatorChoice = Literal["policy", "fraud", "escalate"]
AdjudicatorOutcome = Literal["chose_policy", "chose_fraud", "escalate", "invalid"]
ADJUDICATOR_OUTCOMES: tuple[AdjudicatorOutcome, ...] = get_args(AdjudicatorOutcome)

# ---- the resolver's rules and reason codes -------------------------------------------------

RuleName = Literal[
    "checks",
    "reread",
    "abstain",
    "agree",
    "prefer",
    "conflict",
    "dispute",
    "neither",
    "gates",
    "adjudicator",
]
RULES: tuple[RuleName, ...] = get_args(RuleName)

ReasonCode = Literal[
    "parse_error",
    "policy_not_found",
    "policy_not_in_force",
    "policy_unreadable",
    "no_evidence",
    "clause_not_found",
    "quote_mismatch",
    # The quote is the form's wording that an endorsement in force replaced or deleted.
    "superseded_wording",
    "kind_mismatch",
    "abstained",
    "low_confidence",
    "confidence_gap",
    "needs_more_evidence",
    "interpretation_unresolved",
    "fact_unverified",
    "policy_gate",
    "not_tool_sourced",
    "exclusion_unchecked",
    "adjudicator_invalid",
    "over_authority",
    # The claim's text gives its reviewer instructions (documents/instructions.py).
    "instructions_in_claim",
    # A part inside an attachment could not be read, and is not decoration (documents/record.py).
    "unread_part",
    # An endorsement in force whose reading no person confirmed as it reads now.
    "endorsement_unconfirmed",
]
REASON_CODES: tuple[ReasonCode, ...] = get_args(ReasonCode)

# A cited clause after the re-read (resolver/evidence.py); "superseded": the quote is only in
# the form's words that an endorsement in force replaced, deleted or set aside.
QuoteStatus = Literal["verified", "clause_not_found", "quote_mismatch", "superseded"]
QUOTE_STATUSES: tuple[QuoteStatus, ...] = get_args(QuoteStatus)
assert set(ABSTAIN_REASONS) <= set(REASON_CODES), "an abstention's reason is a reason code"

# The answer a payable amount is computed for (resolver/payable.py).
PAID_ANSWER = "covered"

# ---- what a person decides -----------------------------------------------------------------

HumanDecision = Literal["covered", "not_covered", "needs_more_evidence"]
HUMAN_DECISIONS: tuple[HumanDecision, ...] = get_args(HumanDecision)
# The human decisions that settle coverage one way or the other.
DEFINITE_DECISIONS: tuple[HumanDecision, ...] = ("covered", "not_covered")

# ---- the facts intake extracts -------------------------------------------------------------

FactName = Literal["loss_type", "cause", "date_of_loss", "damage_start_date", "amount_claimed"]
FACT_FIELDS: tuple[FactName, ...] = get_args(FactName)

# The facts that copy a field of the claim file, and which field: a source naming that field is
# checked by equality with the file. Any other fact is sourced by a quote of the claim's words
# (the claim file's date_of_loss is not evidence of when the damage started).
FACT_CLAIM_FIELDS: dict[FactName, str] = {
    "date_of_loss": "date_of_loss",
    "amount_claimed": "amount",
}
# Where a quoted fact may come from, besides an attachment named by its file name.
DESCRIPTION_SOURCE = "description"

# What the code found of a fact's source: it checks out; intake stated the fact but its source
# fails (the rules treat it as unknown); or intake left the fact null.
FactStatus = Literal["verified", "unverified", "unknown"]
FACT_STATUSES: tuple[FactStatus, ...] = get_args(FactStatus)

# ---- agents and tasks: the keys of config/agents.yaml and config/tasks.yaml -----------------

AgentName = Literal["intake", "policy", "fraud", "adjudicator"]
AGENTS: tuple[AgentName, ...] = get_args(AgentName)
# The agents whose answers a claim's record keeps parsed, in the order they run.
ANSWERING_AGENTS: tuple[AgentName, ...] = ("intake", "policy", "fraud")

TaskName = Literal[
    "intake_task",
    "policy_task",
    "fraud_task",
    "adjudicate_task",
    "targeted_question_task",
    "policy_rebuttal_task",
    "fraud_rebuttal_task",
]
TASKS: tuple[TaskName, ...] = get_args(TaskName)
TASK_OF: dict[AgentName, TaskName] = {
    "intake": "intake_task",
    "policy": "policy_task",
    "fraud": "fraud_task",
    "adjudicator": "adjudicate_task",
}
ADJUDICATE_TASK: TaskName = TASK_OF["adjudicator"]
# The intake agent's second task: one question about the facts a conflict turns on, asked only
# when the rules find such a conflict (resolution.yaml: targeted_evidence).
TARGETED_TASK: TaskName = "targeted_question_task"
# Each reviewer's second task in a debate round (resolution.yaml: debate): shown the other side's
# claim once, it may revise its answer and evidence.
REBUTTAL_TASK_OF: dict[Side, TaskName] = {
    "policy": "policy_rebuttal_task",
    "fraud": "fraud_rebuttal_task",
}
AGENT_OF_TASK: dict[TaskName, AgentName] = {
    **{task: agent for agent, task in TASK_OF.items()},
    TARGETED_TASK: "intake",
    **{task: side for side, task in REBUTTAL_TASK_OF.items()},
}
# The tasks run only when the rules ask, each in a crew of its own, after the review.
ON_DEMAND_TASKS: tuple[TaskName, ...] = (
    ADJUDICATE_TASK,
    TARGETED_TASK,
    *REBUTTAL_TASK_OF.values(),
)

# The stages of one claim's review, each stamped when it starts and ends (ClaimRecord.stages):
# the crew's model calls, the rules, and the targeted question, the debate round and the
# adjudicator when the rules ask for them.
Stage = Literal["crew", "resolver", "targeted_evidence", "debate", "adjudicator"]
STAGES: tuple[Stage, ...] = get_args(Stage)
# The levels a claim's decision may pass through, the stages and then a person, whose time is
# from the escalation to the review (report: time to decision per level).
DecisionLevel = Literal["crew", "resolver", "targeted_evidence", "debate", "adjudicator", "person"]
DECISION_LEVELS: tuple[DecisionLevel, ...] = get_args(DecisionLevel)

# What a run gives crew.kickoff(inputs=...): the only names a {placeholder} in agents.yaml or
# tasks.yaml may use. The pipeline builds its inputs from exactly these keys.
KICKOFF_INPUTS: dict[str, str] = {
    "claim_id": "the claim file's claim_id",
    "policy_id": "the claim file's policy_id",
    "claim_text": "the claim file and its attachments, as text",
    "allowed_answers": "the answers resolution.yaml allows, comma-separated",
    "dispute": "the two reviewers' claims, for the adjudicator (empty otherwise)",
    "question": "the facts a conflict turns on, asked of intake once (empty otherwise)",
    "other_claim": "the other reviewer's claim, in a debate round (empty otherwise)",
    "instructions_flag": "the words of the claim that give its reviewer instructions, found in "
    "code (empty when there are none)",
}

# ---- expiry and revalidation ---------------------------------------------------------------

# A claim file's underwriting risk class (ClaimFile.risk_class; expiry.by_risk_class).
RiskClass = Literal["low", "medium", "high"]
RISK_CLASSES: tuple[RiskClass, ...] = get_args(RiskClass)

# Why a decision no longer stands as it was made (`review stale`, the review page): it has
# expired, or what it stood on has changed since: the policy PDF, the policy's kind corrections,
# the config files, the claim file; or the models, which only running it again can tell
# (`revalidate` names them).
StaleReason = Literal["expired", "policy", "corrections", "config", "claim_file", "models"]
STALE_REASONS: tuple[StaleReason, ...] = get_args(StaleReason)

# What a revalidation found: the same outcome and answer again (a replay), or a new decision.
RevalidationVerdict = Literal["replay", "new"]

# ---- claim files ---------------------------------------------------------------------------

# Why a claim file in the inbox cannot be reviewed, in one machine-readable word
# (errors.ClaimFileError.code). The batch reports the file by name and goes on.
ClaimFileProblem = Literal[
    "unreadable",  # cannot be opened, or a PDF, Word or Excel attachment is broken
    "unsupported_type",  # an attachment of no kind read (a zip not Word or Excel, an old .doc)
    "encrypted",  # a PDF or Office attachment that needs a password
    "ocr_failed",  # OCR failed on a scanned page or photo, or ran past the claim's deadline
    "not_a_file",  # a FIFO, a device or a folder: never opened
    "outside_inbox",  # a link out of the inbox, or an attachment outside the claim's folder
    "too_large",  # over a cap: the claim file, or an attachment's bytes, pages or pixels
    "too_deep",  # nested deeper than any claim file needs
    "malformed",  # not JSON or YAML, not a mapping of fields, or a key given twice
    "invalid",  # missing or bad fields
    "duplicate_id",  # another file in the inbox, or one queued, has the same claim_id
]
CLAIM_FILE_PROBLEMS: tuple[ClaimFileProblem, ...] = get_args(ClaimFileProblem)

# ---- failed reviews ------------------------------------------------------------------------

# A claim's review that raised outside the crew (reading the stored claim, what its decision
# stands on, recording it): a fault of this program that the claim brings out, not a provider's
# and not the crew's. The claim fails with this code, its traceback in the claim's log.
REVIEW_FAILED = "review_failed"
# The failure codes that count towards parking a claim (its work item's state 'failed', until a
# person re-queues it): faults the claim is likely to meet again on every try. Not
# `crew_failed`, which a provider's 5xx is as well: an outage would park the whole queue, as a
# timeout, a 429 or a refused key would; those claims wait for the next run, as before.
CLAIM_FAULTS = frozenset({REVIEW_FAILED})

# ---- what a model writes that means nothing ---------------------------------------------------

# A small model that copies its answer's schema instead of filling it in writes a field's type
# name as its value ("string"), or a clause id of punctuation (","). The parser drops such a
# part (models.py) and the trail says so, so no person reads it as if it were an answer.
SCHEMA_TYPE_NAMES = frozenset({"string", "number", "integer", "boolean", "null", "object", "array"})


def means_nothing(value: object) -> bool:
    """A text that is a JSON type's name, or holds no letter or digit."""
    if not isinstance(value, str):
        return False
    return value.strip().lower() in SCHEMA_TYPE_NAMES or not any(c.isalnum() for c in value)


def drop_meaningless(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The answer less the parts that mean nothing (a cited clause id such as ",", a fact such
    as "string"), and why each was dropped: a clause left out is evidence not given, a fact
    left out is unknown, which the rules already handle."""
    kept, notes = dict(data), []
    if isinstance(evidence := data.get("evidence"), list):
        junk = [e for e in evidence if isinstance(e, dict) and means_nothing(e.get("clause_id"))]
        notes += [f"clause id {e['clause_id']!r} is not an id" for e in junk]
        kept["evidence"] = [e for e in evidence if all(e is not j for j in junk)]
    for name in FACT_FIELDS:
        if means_nothing(value := data.get(name)):
            notes.append(f"{name} {value!r} is not a value")
            kept[name] = None
    return kept, notes


# ---- time stamps ---------------------------------------------------------------------------

# UTC, fixed width, so text order is time order in SQL and in exports.
STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A moment as the store writes it (UTC ISO text of fixed width)."""
    return moment.astimezone(UTC).strftime(STAMP_FORMAT)


def parse_stamp(text: str) -> datetime:
    """A stored stamp back as an aware UTC datetime."""
    # fromisoformat reads the fixed-width stamps, many times faster than strptime.
    return datetime.fromisoformat(text).astimezone(UTC)


def day_stamp(day: date | None) -> str:
    """The stamp of the first moment of `day` (UTC); empty, which sorts first, for None."""
    if day is None:
        return ""
    return stamp(datetime(day.year, day.month, day.day, tzinfo=UTC))


# ---- the service API (its webhooks' events: webhook_events.py) -----------------------------------

# Where a claim stands, as the API reports it: waiting in the work queue, held by a worker,
# decided (by rule, adjudicator or person), escalated to a person, or parked after its reviews
# failed (store/failures.py).
ClaimState = Literal["queued", "under_review", "decided", "escalated", "failed"]
CLAIM_STATES: tuple[ClaimState, ...] = get_args(ClaimState)
# What a service client may do: `submit` claims and documents, `read` claims and letters.
ApiScope = Literal["submit", "read"]
API_SCOPES: tuple[ApiScope, ...] = get_args(ApiScope)

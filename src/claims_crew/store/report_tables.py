"""The report's facts: one narrow row per decided claim, kept as the store writes its decision,
so `claims-crew report` sums and groups over them in SQL instead of reading every claim whole
(store/report_facts.py writes and reads them; migration 0022 made them).

What the report groups by is a claim's `shape` (report_shapes): the parts of its row that the
report counts (outcome, rule, reason codes, loss type, open fields, each side's answer, clauses
and confidence bucket, adjudicator, review, ...), as canonical JSON named by its SHA-256. Claims
alike in all of them share one shape, so the groups are as many as the kinds of claim, not the
claims. What the report sums is in the fact's own columns, in whole numbers where it can be
(seconds as microseconds), so sums are exact; the two confidences are summed for the mean.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Float, Index, Integer, Table, Text

from claims_crew.store.tables import metadata

# The tasks and levels with columns of their own; the migration names the same, fixed.
FACT_TASKS = (
    "intake_task",
    "policy_task",
    "fraud_task",
    "adjudicate_task",
    "targeted_question_task",
    "policy_rebuttal_task",
    "fraud_rebuttal_task",
)
TASK_PARTS = ("prompt", "completion", "calls")
FACT_STAGES = ("crew", "resolver", "targeted_evidence", "debate", "adjudicator")

report_shapes = Table(
    "report_shapes",
    metadata,
    Column("key", Text, primary_key=True),  # SHA-256 of the shape
    Column("shape", Text, nullable=False),  # canonical JSON
)

report_facts = Table(
    "report_facts",
    metadata,
    Column("claim_id", Text, primary_key=True),
    Column("decided_at", Text, nullable=False),
    Column("shape", Text, nullable=False),  # report_shapes.key
    Column("outcome", Text, nullable=False),
    Column("rule", Text, nullable=False),
    Column("loss_type", Text),
    Column("reason_codes", Text, nullable=False),  # JSON list, for the escalations listed
    Column("question", Text),
    Column("escalation_id", Integer),
    Column("escalation_state", Text),
    Column("review", Text),
    Column("model_calls", BigInteger, nullable=False),
    Column("tokens", BigInteger, nullable=False),
    Column("micros", BigInteger, nullable=False),  # the claim's start to its record
    Column("person_micros", BigInteger),  # the escalation's opening to a person's decision
    Column("policy_confidence", Float),
    Column("fraud_confidence", Float),
    *(Column(f"{stage}_micros", BigInteger) for stage in FACT_STAGES),
    *(
        Column(f"{task}_{part}", BigInteger, nullable=False, server_default="0")
        for task in FACT_TASKS
        for part in TASK_PARTS
    ),
)

Index("report_facts_decided", report_facts.c.decided_at)
Index("report_facts_waiting", report_facts.c.escalation_state, report_facts.c.claim_id)
# Each level's seconds in order, for its longest and its median without sorting the column.
for _level in (*FACT_STAGES, "person"):
    _column = report_facts.c[f"{_level}_micros"]
    Index(f"report_facts_{_level}", _column, report_facts.c.decided_at)

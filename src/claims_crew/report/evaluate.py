"""Measure the crew against decisions people already made, before trusting it with new ones.

A labels file gives, per claim id, the decision a person made: `covered`, `not_covered`, or
`ambiguous` (a person found it could go either way). It is CSV with a header naming the columns
`claim_id` and `label` (other columns, such as a note, are ignored), or JSONL with one object per
line holding those two keys. Labels are read strictly: an unknown label, a missing column, a
duplicate or an empty claim id stops the evaluation with the file name and line.

Only labelled claims that have a decision in the store are measured (`matched`); labels for
claims the store has not decided are listed in `unmatched`. The definitions:

- **automatic**: decided without a person: ACCEPTED, PREFERRED or ADJUDICATED. The adjudicator's
  decisions count here, because no person looks at them before they stand.
- **safe coverage**: automatic and the answer equals the label, over matched claims.
- **unsafe automatic decisions**: automatic and the label is covered or not_covered and differs
  from the answer, over matched claims. The number that must stay near zero; `unsafe` lists them.
- **ambiguous decided**: automatic, on a claim labelled ambiguous, over matched claims. Neither
  safe nor unsafe: a person thought it could go either way and the crew decided anyway.
  Safe + unsafe + ambiguous decided = automatic coverage of the labelled claims.
- **consensus error rate**: both agents' answers parsed and were the same, and the label (covered
  or not_covered) differs, over labelled claims where both agents gave the same answer (two
  abstentions are no answer) and the label is covered or not_covered. It measures the agents,
  whatever the resolver then did;
  `consensus_error_decided` counts those that still became automatic decisions (the re-read and
  the gates are there to keep it at zero).
- **escalation precision**: of the labelled claims left for a person (ESCALATED or
  ADJUDICATION_REQUIRED), the share where that was warranted: the label is ambiguous, or the
  agents' disagreement was real, meaning they did not both give the answer the label confirms
  (their answers differed, an answer did not parse, or they agreed on the wrong answer). An
  escalation is needless only when both agents gave the same answer and the label agrees with
  it: the rules had a right answer in hand. `escalation_precision_by_reason` splits it by reason
  code (`adjudication_required` for a dispute left unadjudicated, which carries no code).
- **abstention correctness**: of the claims labelled ambiguous, the share the crew abstained on
  (left for a person with a typed reason) instead of deciding. Precision asks whether each
  abstention was needed; this asks whether the crew abstained where it had to.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel

from claims_crew.errors import LabelError
from claims_crew.report.metrics import Metric, metric
from claims_crew.report.rows import ClaimRow
from claims_crew.vocabulary import ABSTENTION, DECIDED_OUTCOMES, DEFINITE_DECISIONS, OUTCOMES

Label = Literal["covered", "not_covered", "ambiguous"]
LABELS: tuple[Label, ...] = get_args(Label)


def normalise_label(value: object) -> Label | None:
    """ "Not covered", "NOT-COVERED" and "not_covered" are one label; anything else is None."""
    if not isinstance(value, str):
        return None
    folded = re.sub(r"[\s-]+", "_", value.strip().lower())
    for label in LABELS:
        if folded == label:
            return label
    return None


def _add(labels: dict[str, Label], where: str, claim_id: object, label: object) -> None:
    if not isinstance(claim_id, str) or not claim_id.strip():
        raise LabelError(f"{where}: claim_id is missing or empty")
    parsed = normalise_label(label)
    if parsed is None:
        raise LabelError(f"{where}: label {label!r} is not one of {', '.join(LABELS)}")
    claim_id = claim_id.strip()
    if claim_id in labels:
        raise LabelError(f"{where}: claim {claim_id} is labelled twice")
    labels[claim_id] = parsed


def parse_labels(text: str, name: str, jsonl: bool) -> dict[str, Label]:
    """Claim id → label from the text of a labels file (CSV, or JSONL when `jsonl`)."""
    labels: dict[str, Label] = {}
    if jsonl:
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:
                raise LabelError(f"{name} line {number}: not JSON: {exc}") from exc
            if not isinstance(item, dict):
                raise LabelError(f"{name} line {number}: expected an object with claim_id, label")
            for key in ("claim_id", "label"):
                if key not in item:
                    raise LabelError(f"{name} line {number}: no {key!r} key")
            _add(labels, f"{name} line {number}", item["claim_id"], item["label"])
    else:
        reader = csv.DictReader(io.StringIO(text))
        columns = [c.strip() for c in reader.fieldnames or ()]
        missing = [c for c in ("claim_id", "label") if c not in columns]
        if missing:
            raise LabelError(
                f"{name}: the header must name claim_id and label; missing {', '.join(missing)}"
            )
        reader.fieldnames = columns
        for row in reader:
            where = f"{name} line {reader.line_num}"
            if None in row:
                raise LabelError(f"{where}: more values than columns")
            if all(not (v or "").strip() for v in row.values()):
                continue
            _add(labels, where, row.get("claim_id"), row.get("label"))
    if not labels:
        raise LabelError(f"{name}: no labels")
    return labels


def read_labels(path: Path) -> dict[str, Label]:
    """A CSV or JSONL labels file: `.jsonl`/`.ndjson` are JSONL, `.csv` is CSV, and any other
    name is JSONL when its first non-blank character is `{`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise LabelError(f"{path}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelError(f"{path}: cannot be read: {exc}") from exc
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        jsonl = True
    elif suffix == ".csv":
        jsonl = False
    else:
        jsonl = text.lstrip().startswith("{")
    return parse_labels(text, str(path), jsonl)


class Mismatch(BaseModel):
    claim_id: str
    outcome: str
    answer: str | None
    label: str


class Evaluation(BaseModel):
    labels: int
    matched: int
    unmatched: list[str]
    label_counts: dict[str, int]
    outcomes_by_label: dict[str, dict[str, int]]
    automatic: Metric
    safe_coverage: Metric
    unsafe_automatic: Metric
    ambiguous_decided: Metric
    consensus_error: Metric
    consensus_error_decided: Metric
    escalation_precision: Metric
    escalation_precision_by_reason: dict[str, Metric]
    abstention_correctness: Metric
    unsafe: list[Mismatch]


def _warranted(row: ClaimRow, label: Label) -> bool:
    """An escalation was needed unless both agents gave the same answer and the label agrees."""
    return label == "ambiguous" or not (row.agreed and row.policy.answer == label)


def evaluate(rows: Sequence[ClaimRow], labels: Mapping[str, Label]) -> Evaluation:
    """The evaluation of the decided rows against the labels; pure."""
    by_id = {r.claim_id: r for r in rows}
    matched = [(by_id[c], label) for c, label in labels.items() if c in by_id]
    matched.sort(key=lambda pair: pair[0].claim_id)
    n = len(matched)
    automatic = [(r, lab) for r, lab in matched if r.outcome in DECIDED_OUTCOMES]
    safe = [(r, lab) for r, lab in automatic if r.answer == lab]
    unsafe = [(r, lab) for r, lab in automatic if lab in DEFINITE_DECISIONS and r.answer != lab]
    agreed = [
        (r, lab)
        for r, lab in matched
        if r.agreed and r.policy.answer != ABSTENTION and lab in DEFINITE_DECISIONS
    ]
    consensus_wrong = [(r, lab) for r, lab in agreed if r.policy.answer != lab]
    waiting = [(r, lab) for r, lab in matched if r.waiting]
    warranted = [(r, lab) for r, lab in waiting if _warranted(r, lab)]
    ambiguous = [(r, lab) for r, lab in matched if lab == "ambiguous"]
    reasons: Counter[str] = Counter()
    reasons_warranted: Counter[str] = Counter()
    for r, lab in waiting:
        # A dispute left unadjudicated carries no reason code; its outcome names it.
        for code in dict.fromkeys(r.reason_codes or (r.outcome.lower(),)):
            reasons[code] += 1
            reasons_warranted[code] += _warranted(r, lab)
    table: dict[str, dict[str, int]] = {o: dict.fromkeys(LABELS, 0) for o in OUTCOMES}
    for r, lab in matched:
        table.setdefault(r.outcome, dict.fromkeys(LABELS, 0))[lab] += 1
    return Evaluation(
        labels=len(labels),
        matched=n,
        unmatched=sorted(c for c in labels if c not in by_id),
        label_counts={lab: sum(1 for _, x in matched if x == lab) for lab in LABELS},
        outcomes_by_label=table,
        automatic=metric(len(automatic), n),
        safe_coverage=metric(len(safe), n),
        unsafe_automatic=metric(len(unsafe), n),
        ambiguous_decided=metric(sum(1 for _, lab in automatic if lab == "ambiguous"), n),
        consensus_error=metric(len(consensus_wrong), len(agreed)),
        consensus_error_decided=metric(
            sum(1 for r, _ in consensus_wrong if r.outcome in DECIDED_OUTCOMES),
            len(consensus_wrong),
        ),
        escalation_precision=metric(len(warranted), len(waiting)),
        escalation_precision_by_reason={
            code: metric(reasons_warranted[code], count) for code, count in sorted(reasons.items())
        },
        abstention_correctness=metric(sum(1 for r, _ in ambiguous if r.waiting), len(ambiguous)),
        unsafe=[
            Mismatch(claim_id=r.claim_id, outcome=r.outcome, answer=r.answer, label=lab)
            for r, lab in unsafe
        ],
    )

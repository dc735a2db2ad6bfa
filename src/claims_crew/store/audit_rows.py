"""The rows the audit entries recorded: each must agree with its entry, and each entry have them.

The queue, the page and the report read the `decisions`, `escalations`, `reviews` and
`resolutions` tables, not the audit log. A verified chain is worth little if those rows can be
edited under it: an escalation quietly marked decided leaves the queue, and a decision set to
ACCEPTED counts as automatic in the report. So every such row names the entry that recorded it
(`audit_seq`), and `check` compares them field by field, after the chain itself has verified:

- a decision (and the resolution it rests on) with its entry: claim, file hash, outcome, answer,
  rule, reason codes, reason, who decided and when;
- an escalation with its claim's escalated entry; open unless a review closed it, and then
  saying what the review says;
- a review with its human entry, which must override the escalation's entry by number and hash;
- and every entry with the rows it recorded: a decision for each automatic, adjudicated or
  escalated entry, an escalation for each escalated one, a review for each human one (rows a
  revalidation replaced count, kept in `superseded`; validity_rows.py checks those).

The first problem, in entry order, is named.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from claims_crew.store import audit, validity_rows

DECIDING_KINDS = ("auto", "adjudicated", "escalated")

_DECISIONS = """
SELECT d.audit_seq AS seq, a.body AS entry, d.claim_id, d.claim_sha256, d.outcome, d.answer,
       d.decided_by, d.decided_at, d.attempt_id, r.id AS resolution_id,
       r.attempt_id AS r_attempt_id, r.claim_id AS r_claim_id, r.outcome AS r_outcome,
       r.rule AS r_rule, r.answer AS r_answer, r.reason_codes AS r_reason_codes,
       iif(json_valid(r.body), json_extract(r.body, '$.outcome'), NULL) AS rb_outcome,
       iif(json_valid(r.body), json_extract(r.body, '$.rule'), NULL) AS rb_rule,
       iif(json_valid(r.body), json_extract(r.body, '$.answer'), NULL) AS rb_answer,
       iif(json_valid(r.body), json_extract(r.body, '$.reason_codes'), NULL) AS rb_reason_codes,
       iif(json_valid(r.body), json_extract(r.body, '$.reason'), NULL) AS rb_reason
FROM decisions d
LEFT JOIN audit_log a ON a.seq = d.audit_seq
LEFT JOIN resolutions r ON r.id = d.resolution_id
ORDER BY d.audit_seq
"""

_ESCALATIONS = """
SELECT e.audit_seq AS seq, a.body AS entry, e.claim_id, e.reason_codes, e.question, e.opened_at,
       e.resolution_id, e.state, e.decided_by, e.decided_at, e.decision,
       d.audit_seq AS d_seq, d.resolution_id AS d_resolution_id, r.question AS r_question,
       v.id AS review_id, v.reviewer AS v_reviewer, v.decision AS v_decision,
       v.decided_at AS v_decided_at, v.audit_seq AS v_seq
FROM escalations e
LEFT JOIN audit_log a ON a.seq = e.audit_seq
LEFT JOIN decisions d ON d.claim_id = e.claim_id
LEFT JOIN resolutions r ON r.id = e.resolution_id
LEFT JOIN reviews v ON v.escalation_id = e.id
ORDER BY e.audit_seq
"""

_REVIEWS = """
SELECT v.audit_seq AS seq, a.body AS entry, v.claim_id, v.reviewer, v.decision, v.reason,
       v.decided_at, e.id AS escalation_id, e.claim_id AS e_claim_id, e.audit_seq AS e_seq,
       o.hash AS e_hash
FROM reviews v
LEFT JOIN audit_log a ON a.seq = v.audit_seq
LEFT JOIN escalations e ON e.id = v.escalation_id
LEFT JOIN audit_log o ON o.seq = e.audit_seq
ORDER BY v.audit_seq
"""

_ENTRIES_WITHOUT_ROWS = """
SELECT seq, kind, claim_id, has_decision, has_escalation FROM (
  SELECT a.seq, json_extract(a.body, '$.kind') AS kind, a.claim_id,
         EXISTS (SELECT 1 FROM decisions d WHERE d.audit_seq = a.seq)
           OR EXISTS (SELECT 1 FROM superseded s
                      WHERE s.audit_seq = a.seq AND s.what = 'decision') AS has_decision,
         EXISTS (SELECT 1 FROM escalations e WHERE e.audit_seq = a.seq)
           OR EXISTS (SELECT 1 FROM superseded s
                      WHERE s.audit_seq = a.seq AND s.what = 'escalation') AS has_escalation,
         EXISTS (SELECT 1 FROM reviews v WHERE v.audit_seq = a.seq)
           OR EXISTS (SELECT 1 FROM superseded s
                      WHERE s.audit_seq = a.seq AND s.what = 'review') AS has_review
  FROM audit_log a)
WHERE (kind IN ('auto', 'adjudicated', 'escalated') AND NOT has_decision)
   OR (kind = 'escalated' AND NOT has_escalation)
   OR (kind = 'human' AND NOT has_review)
ORDER BY seq LIMIT 1
"""

_NOT_ENTRY_NUMBERS = """
SELECT 'decision', claim_id, audit_seq FROM decisions WHERE typeof(audit_seq) != 'integer'
UNION ALL
SELECT 'escalation', claim_id, audit_seq FROM escalations WHERE typeof(audit_seq) != 'integer'
UNION ALL
SELECT 'review', claim_id, audit_seq FROM reviews WHERE typeof(audit_seq) != 'integer'
LIMIT 1
"""


def _list(text: str | None) -> Any:
    """A JSON list column as a value to compare; text that is not JSON stays as it is."""
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return text


def _rows(conn: sqlite3.Connection, sql: str) -> Iterator[sqlite3.Row]:
    cur = conn.cursor()
    cur.row_factory = sqlite3.Row
    yield from cur.execute(sql)


def _differences(
    what: str, seq: int, pairs: Iterable[tuple[str, Any, Any]], source: str = ""
) -> str | None:
    """The first field where a row (left) and its entry (right) differ, as a sentence."""
    for name, row_value, entry_value in pairs:
        if row_value != entry_value:
            return (
                f"{what} says {name} {row_value!r}, "
                f"{source or f'its audit entry {seq}'} says {entry_value!r}"
            )
    return None


def _entry(what: str, row: sqlite3.Row, kinds: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    """The entry a row names, or why it cannot be its entry."""
    if row["entry"] is None:
        return {}, f"{what} names audit entry {row['seq']}, which does not exist"
    entry: dict[str, Any] = json.loads(row["entry"])
    if entry["kind"] not in kinds:
        return entry, f"{what} names audit entry {row['seq']}, which is a {entry['kind']} entry"
    return entry, ""


Problem = tuple[int, str]  # the entry at fault, and what is wrong


def _at(seq: int, problem: str | None) -> Problem | None:
    return (seq, problem) if problem else None


def _decision_problem(row: sqlite3.Row) -> Problem | None:
    return _at(row["seq"], _decision_text(row))


def _decision_text(row: sqlite3.Row) -> str | None:
    what = f"the decision of claim {row['claim_id']}"
    entry, problem = _entry(what, row, DECIDING_KINDS)
    if problem:
        return problem
    seq = row["seq"]
    found = _differences(
        what,
        seq,
        [
            ("claim", row["claim_id"], entry["claim_id"]),
            ("claim file hash", row["claim_sha256"], entry["claim_sha256"]),
            ("outcome", row["outcome"], entry["outcome"]),
            ("answer", row["answer"], entry["answer"]),
            ("decided by", row["decided_by"], entry["actor"]),
            ("decided at", row["decided_at"], entry["at"]),
        ],
    )
    if found or row["resolution_id"] is None:
        return found or f"{what} rests on a resolution that does not exist"
    return _differences(
        f"the resolution behind {what}",
        seq,
        [
            ("attempt", row["r_attempt_id"], row["attempt_id"]),
            ("claim", row["r_claim_id"], entry["claim_id"]),
            ("outcome", row["r_outcome"], entry["outcome"]),
            ("outcome", row["rb_outcome"], entry["outcome"]),
            ("rule", row["r_rule"], entry["rule"]),
            ("rule", row["rb_rule"], entry["rule"]),
            ("answer", row["r_answer"], entry["answer"]),
            ("answer", row["rb_answer"], entry["answer"]),
            ("reason codes", _list(row["r_reason_codes"]), entry["reason_codes"]),
            ("reason codes", _list(row["rb_reason_codes"]), entry["reason_codes"]),
            ("reason", row["rb_reason"], entry["reason"]),
        ],
    )


def _escalation_problem(row: sqlite3.Row) -> Problem | None:
    """An escalation against its escalated entry; its state against the review that closed it,
    charged to the review's (human) entry, which recorded that decision."""
    what = f"the escalation of claim {row['claim_id']}"
    entry, problem = _entry(what, row, ("escalated",))
    seq = row["seq"]
    if problem:
        return seq, problem
    if row["d_seq"] is None:
        return seq, f"{what} has no decision"
    found = _differences(
        what,
        seq,
        [
            ("claim", row["claim_id"], entry["claim_id"]),
            ("reason codes", _list(row["reason_codes"]), entry["reason_codes"]),
            ("opened at", row["opened_at"], entry["at"]),
        ],
    ) or _differences(
        what,
        seq,
        [
            ("audit entry", seq, row["d_seq"]),
            ("resolution", row["resolution_id"], row["d_resolution_id"]),
            ("question", row["question"], row["r_question"]),
        ],
        "its decision",
    )
    if found:
        return seq, found
    if row["review_id"] is None:
        return _at(
            seq,
            _differences(
                what,
                seq,
                [
                    ("state", row["state"], "open"),
                    ("decided by", row["decided_by"], None),
                    ("decided at", row["decided_at"], None),
                    ("decision", row["decision"], None),
                ],
                "no review has decided it, so it should be open, and the audit trail agrees",
            ),
        )
    return _at(
        row["v_seq"],
        _differences(
            what,
            seq,
            [
                ("state", row["state"], "decided"),
                ("decided by", row["decided_by"], row["v_reviewer"]),
                ("decided at", row["decided_at"], row["v_decided_at"]),
                ("decision", row["decision"], row["v_decision"]),
            ],
            "the review that decided it",
        ),
    )


def _review_problem(row: sqlite3.Row) -> Problem | None:
    return _at(row["seq"], _review_text(row))


def _review_text(row: sqlite3.Row) -> str | None:
    what = f"the review of claim {row['claim_id']}"
    entry, problem = _entry(what, row, ("human",))
    if problem:
        return problem
    if row["escalation_id"] is None:
        return f"{what} names an escalation that does not exist"
    return _differences(
        what,
        row["seq"],
        [
            ("claim", row["claim_id"], entry["claim_id"]),
            ("reviewer", f"human:{row['reviewer']}", entry["actor"]),
            ("decision", row["decision"], entry["answer"]),
            ("reason", row["reason"], entry["reason"]),
            ("decided at", row["decided_at"], entry["at"]),
            ("escalated claim", row["e_claim_id"], entry["claim_id"]),
            ("escalation entry", row["e_seq"], entry["overrides"]),
            ("escalation entry hash", row["e_hash"], entry["overrides_hash"]),
        ],
    )


def check(conn: sqlite3.Connection, entries: int) -> audit.Verdict:
    """Compare every decision, escalation and review row with its audit entry, and every entry
    with its rows; run it on a chain that has verified (`entries` long)."""
    # The schema says INTEGER, but SQLite keeps whatever is written: such a row names no entry.
    odd = conn.execute(_NOT_ENTRY_NUMBERS).fetchone()
    if odd is not None:
        what, claim_id, seq = odd
        text = f"the {what} of claim {claim_id} names audit entry {seq!r}, not an entry number"
        return audit.Verdict(False, entries, None, text)
    first: Problem | None = None

    def found(seq: int, problem: str) -> None:
        nonlocal first
        if first is None or seq < first[0]:
            first = (seq, problem)

    # Reviews before escalations: where a review and its escalation disagree at the same
    # human entry, the review is compared with the entry first, and is blamed if it differs.
    for sql, judge in (
        (_DECISIONS, _decision_problem),
        (_REVIEWS, _review_problem),
        (_ESCALATIONS, _escalation_problem),
    ):
        for row in _rows(conn, sql):
            if first is not None and row["seq"] >= first[0]:
                break  # rows come in entry order, and none is charged to an earlier entry
            if charged := judge(row):
                found(*charged)
    for charged in validity_rows.problems(conn):
        found(*charged)
    missing = conn.execute(_ENTRIES_WITHOUT_ROWS).fetchone()
    if missing is not None:
        seq, kind, claim_id, has_decision, _ = missing
        lacks = "review" if kind == "human" else "escalation" if has_decision else "decision"
        found(int(seq), f"audit entry {seq} ({kind}, claim {claim_id}) has no {lacks} row")
    if first is None:
        return audit.Verdict(True, entries)
    return audit.Verdict(False, entries, first[0], first[1])

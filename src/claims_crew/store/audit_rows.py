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

The queries read plain columns only; what a JSON body holds (an entry's kind, a resolution's
fields) is read here in Python, as the bodies are JSON text our code wrote, so the checks and
their sentences are the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from sqlalchemy import Connection, Select, select

from claims_crew.store import audit, call_rows, desk_audit_rows, letter_rows, validity_rows
from claims_crew.store.audit_row_queries import DECISIONS, ESCALATIONS, NAMING, REVIEWS
from claims_crew.store.tables import audit_log
from claims_crew.store.tables import superseded as superseded_rows

DECIDING_KINDS = ("auto", "adjudicated", "escalated")

Row = Mapping[Any, Any]

_RESOLUTION_BODY_FIELDS = ("outcome", "rule", "answer", "reason_codes", "reason")


def _json_object(text: str | None) -> dict[str, Any]:
    """A JSON object held as text; empty when the text is no JSON object."""
    try:
        value = json.loads(text) if text is not None else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _compact(value: Any) -> Any:
    """A list or object as its compact JSON text, which `_list` reads as it reads the JSON list
    columns; anything else as it is."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return value


def _json_field(text: str | None, key: str) -> Any:
    """One top-level field of a JSON object held as text: None when the text is no JSON
    object or lacks the key; a list or object as its compact JSON text."""
    return _compact(_json_object(text).get(key))


def _with_body_fields(row: Row) -> Row:
    """A decision row with the fields of its resolution's body beside its columns (the body
    parsed once for all of them)."""
    body = _json_object(row["r_body"])
    return {**row, **{f"rb_{key}": _compact(body.get(key)) for key in _RESOLUTION_BODY_FIELDS}}


def _list(text: str | None) -> Any:
    """A JSON list column as a value to compare; text that is not JSON stays as it is."""
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return text


def _rows(conn: Connection, query: Select[Any]) -> Iterator[Row]:
    yield from conn.execute(query).mappings()


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


def _entry(what: str, row: Row, kinds: tuple[str, ...]) -> tuple[dict[str, Any], str]:
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


def _decision_problem(row: Row) -> Problem | None:
    return _at(row["seq"], _decision_text(_with_body_fields(row)))


def _decision_text(row: Row) -> str | None:
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


def _escalation_problem(row: Row) -> Problem | None:
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


def _review_problem(row: Row) -> Problem | None:
    return _at(row["seq"], _review_text(row))


def _review_text(row: Row) -> str | None:
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
            # The clauses it rests on, as re-read: a review's words cannot be changed alone.
            ("clauses", json.loads(row["clauses"] or "[]"), entry.get("clauses") or []),
            ("escalated claim", row["e_claim_id"], entry["claim_id"]),
            ("escalation entry", row["e_seq"], entry["overrides"]),
            ("escalation entry hash", row["e_hash"], entry["overrides_hash"]),
        ],
    )


def _not_an_entry_number(conn: Connection) -> str | None:
    """A row whose entry number is no integer. The schema says INTEGER, but SQLite keeps
    whatever is written (PostgreSQL refuses it): such a row names no entry."""
    for what, table, order in NAMING:
        for row in conn.execute(select(table.c.claim_id, table.c.audit_seq).order_by(order)):
            if type(row.audit_seq) is not int:
                return (
                    f"the {what} of claim {row.claim_id} names audit entry {row.audit_seq!r}, "
                    "not an entry number"
                )
    return None


def _entry_without_rows(conn: Connection) -> Problem | None:
    """The first entry that lacks a row it recorded: a decision for each deciding entry, an
    escalation for each escalated one, a review for each human one (or the row a revalidation
    replaced, kept in `superseded`)."""
    recorded: dict[str, set[int]] = {
        what: set(conn.execute(select(table.c.audit_seq)).scalars()) for what, table, _ in NAMING
    }
    superseded = select(superseded_rows.c.what, superseded_rows.c.audit_seq)
    for row in conn.execute(superseded):
        recorded.setdefault(row.what, set()).add(row.audit_seq)
    entries = conn.execute(
        select(audit_log.c.seq, audit_log.c.claim_id, audit_log.c.body).order_by(audit_log.c.seq)
    )
    for row in entries:
        seq, kind = row.seq, _json_field(row.body, "kind")
        has_decision = seq in recorded["decision"]
        if (
            (kind in DECIDING_KINDS and not has_decision)
            or (kind == "escalated" and seq not in recorded["escalation"])
            or (kind == "human" and seq not in recorded["review"])
        ):
            lacks = "review" if kind == "human" else "escalation" if has_decision else "decision"
            return seq, f"audit entry {seq} ({kind}, claim {row.claim_id}) has no {lacks} row"
    return None


def check(conn: Connection, chain: audit.Verdict) -> audit.Verdict:
    """Compare every decision, escalation and review row with its audit entry, and every entry
    with its rows; run it on a chain that has verified (as `chain` says); `chain` when all
    agree."""
    entries = chain.entries
    if odd := _not_an_entry_number(conn):
        return audit.Verdict(False, entries, None, odd)
    first: Problem | None = None

    def found(seq: int, problem: str) -> None:
        nonlocal first
        if first is None or seq < first[0]:
            first = (seq, problem)

    # Reviews before escalations: where a review and its escalation disagree at the same
    # human entry, the review is compared with the entry first, and is blamed if it differs.
    for query, judge in (
        (DECISIONS, _decision_problem),
        (REVIEWS, _review_problem),
        (ESCALATIONS, _escalation_problem),
    ):
        for row in _rows(conn, query):
            if first is not None and row["seq"] >= first[0]:
                break  # rows come in entry order, and none is charged to an earlier entry
            if charged := judge(row):
                found(*charged)
    for charged in validity_rows.problems(conn):
        found(*charged)
    for charged in desk_audit_rows.problems(conn):
        found(*charged)
    for charged in letter_rows.problems(conn):
        found(*charged)
    for charged in call_rows.problems(conn):
        found(*charged)
    if missing := _entry_without_rows(conn):
        found(*missing)
    if first is None:
        return chain
    return audit.Verdict(False, entries, first[0], first[1])

"""The rows of expiry and revalidation against the audit entries that recorded them.

`audit verify` checks these beside the decision rows (audit_rows.py):

- a validations row (what a claim's decision stands on, and until when) must say what its entry
  says: claim file, policy, kind corrections, config and models hashes, expiry. An expiry moved
  under the chain would keep a decision from showing as stale;
- a superseded row must name an entry of its claim, and the entry that replaced it must be a
  revalidation of that claim that made a new decision, or an appeal's decision: a row cannot be
  moved out of force and hidden there by anything but a recorded revalidation or appeal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, select

from claims_crew.store.tables import audit_log, superseded, validations

# What `_parsed` gives for text that is no JSON: told apart from JSON's null.
_UNREADABLE = object()


def _parsed(text: str | None) -> Any:
    """A JSON text read back, or _UNREADABLE where it is none (a row edited by hand)."""
    if text is None:
        return _UNREADABLE
    try:
        return json.loads(text)
    except ValueError:
        return _UNREADABLE


def _field(text: str | None, name: str) -> Any:
    """One field of a JSON object's text; None where the text is no JSON object or lacks it."""
    value = _parsed(text)
    return value.get(name) if isinstance(value, dict) else None


def _new_decision(body: str | None) -> bool:
    """A revalidation that made a new decision, or an appeal's decision."""
    return _field(body, "revalidation") == "new" or isinstance(_field(body, "appeal"), dict)


# Each validations row beside the entry it names (`body` None where there is none).
_VALIDATIONS = (
    select(validations, audit_log.c.body)
    .select_from(validations.outerjoin(audit_log, audit_log.c.seq == validations.c.audit_seq))
    .order_by(validations.c.audit_seq, validations.c.claim_id)
)

# Each superseded row beside the entry it recorded (`own`) and the entry that replaced it (`by`).
_OWN, _BY = audit_log.alias("own"), audit_log.alias("by")
_SUPERSEDED = (
    select(
        superseded,
        _OWN.c.claim_id.label("own_claim_id"),
        _BY.c.claim_id.label("by_claim_id"),
        _BY.c.body.label("by_body"),
    )
    .select_from(
        superseded.outerjoin(_OWN, _OWN.c.seq == superseded.c.audit_seq).outerjoin(
            _BY, _BY.c.seq == superseded.c.superseded_by
        )
    )
    .order_by(superseded.c.superseded_by, superseded.c.id)
)


def problems(conn: Connection) -> Iterator[tuple[int, str]]:
    """Each problem found, with the entry it is charged to."""
    for v in conn.execute(_VALIDATIONS).mappings():
        claim_id, seq = v["claim_id"], v["audit_seq"]
        what = f"the validation of claim {claim_id}"
        if v["body"] is None:
            yield int(seq), f"{what} names audit entry {seq}, which does not exist"
            continue
        entry = json.loads(v["body"])  # an entry of a verified chain: our own JSON
        # Models that are no JSON differ from any entry's, and are shown as they are.
        models = _parsed(v["models"])
        for name, row_value, entry_value in (
            ("claim", claim_id, entry.get("claim_id")),
            ("claim file hash", v["claim_sha256"], entry.get("claim_sha256")),
            ("expires at", v["expires_at"], entry.get("expires_at")),
            ("policy hash", v["policy_sha256"], entry.get("policy_sha256")),
            ("corrections hash", v["policy_corrections_sha256"],
             entry.get("policy_corrections_sha256")),
            ("config hash", v["config_sha256"], entry.get("config_files_sha256")),
            ("models", v["models"] if models is _UNREADABLE else models, entry.get("models")),
        ):  # fmt: skip
            if row_value != entry_value:
                yield (
                    int(seq),
                    f"{what} says {name} {row_value!r}, its audit entry {seq} says {entry_value!r}",
                )
                break
    for s in conn.execute(_SUPERSEDED).mappings():
        claim_id, seq, by = s["claim_id"], s["audit_seq"], s["superseded_by"]
        text = f"the superseded {s['what']} of claim {claim_id}"
        if s["own_claim_id"] != claim_id or _field(s["row"], "audit_seq") != seq:
            yield int(by), f"{text} does not match its audit entry {seq}"
        elif s["by_claim_id"] != claim_id or not _new_decision(s["by_body"]):
            yield int(by), f"{text} was replaced by entry {by}, which is no new decision of it"

"""The rows of expiry and revalidation against the audit entries that recorded them.

`audit verify` checks these beside the decision rows (audit_rows.py):

- a validations row (what a claim's decision stands on, and until when) must say what its entry
  says: claim file, policy, kind corrections, config and models hashes, expiry. An expiry moved
  under the chain would keep a decision from showing as stale;
- a superseded row must name an entry of its claim, and the entry that replaced it must be a
  revalidation of that claim that made a new decision: a row cannot be moved out of force and
  hidden there by anything but a recorded revalidation.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

_VALIDATIONS = """
SELECT v.claim_id, v.audit_seq, a.body, v.claim_sha256, v.expires_at, v.policy_sha256,
       v.policy_corrections_sha256, v.config_sha256, v.models
FROM validations v LEFT JOIN audit_log a ON a.seq = v.audit_seq
ORDER BY v.audit_seq
"""

_SUPERSEDED = """
SELECT s.what, s.claim_id, s.audit_seq, s.superseded_by, s.row, o.claim_id, b.claim_id,
       iif(json_valid(b.body), json_extract(b.body, '$.revalidation'), NULL)
FROM superseded s
LEFT JOIN audit_log o ON o.seq = s.audit_seq
LEFT JOIN audit_log b ON b.seq = s.superseded_by
ORDER BY s.superseded_by
"""


def problems(conn: sqlite3.Connection) -> Iterator[tuple[int, str]]:
    """Each problem found, with the entry it is charged to."""
    for claim_id, seq, body, *values in conn.execute(_VALIDATIONS):
        what = f"the validation of claim {claim_id}"
        if body is None:
            yield int(seq), f"{what} names audit entry {seq}, which does not exist"
            continue
        entry = json.loads(body)
        claim_sha, expires_at, policy, corrections, config, models = values
        for name, row_value, entry_value in (
            ("claim", claim_id, entry.get("claim_id")),
            ("claim file hash", claim_sha, entry.get("claim_sha256")),
            ("expires at", expires_at, entry.get("expires_at")),
            ("policy hash", policy, entry.get("policy_sha256")),
            ("corrections hash", corrections, entry.get("policy_corrections_sha256")),
            ("config hash", config, entry.get("config_files_sha256")),
            ("models", json.loads(models), entry.get("models")),
        ):
            if row_value != entry_value:
                yield (
                    int(seq),
                    f"{what} says {name} {row_value!r}, its audit entry {seq} says {entry_value!r}",
                )
                break
    for what, claim_id, seq, by, row, own_claim, by_claim, verdict in conn.execute(_SUPERSEDED):
        text = f"the superseded {what} of claim {claim_id}"
        if own_claim != claim_id or json.loads(row).get("audit_seq") != seq:
            yield int(by), f"{text} does not match its audit entry {seq}"
        elif by_claim != claim_id or verdict != "new":
            yield int(by), f"{text} was replaced by entry {by}, which is no new decision of it"

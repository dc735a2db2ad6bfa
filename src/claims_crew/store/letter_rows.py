"""The letters issued against the audit entries that recorded them.

`audit verify` checks these beside the decision rows (audit_rows.py): each `letters` row must
name a letter entry of its claim and say what it says (format, hash, time), and each letter
entry must have its row. A letter row edited under the chain would make the trail vouch for a
letter that was never sent; one deleted would let revalidation read the letter's entry as the
decision in force (revalidation.py reads past the entries these rows name).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from sqlalchemy import Connection, select

from claims_crew.store.tables import audit_log, letters

# Each letters row beside the entry it names (`body` None where there is none).
_LETTERS = (
    select(letters, audit_log.c.body)
    .select_from(letters.outerjoin(audit_log, audit_log.c.seq == letters.c.audit_seq))
    .order_by(letters.c.audit_seq, letters.c.id)
)


def _kind(text: str) -> object:
    try:
        body = json.loads(text)
    except ValueError:
        return None
    return body.get("kind") if isinstance(body, dict) else None


def problems(conn: Connection) -> Iterator[tuple[int, str]]:
    """Each problem found, with the entry it is charged to."""
    named: set[int] = set()
    for row in conn.execute(_LETTERS).mappings():
        seq = int(row["audit_seq"])
        named.add(seq)
        what = f"the {row['format']} letter of claim {row['claim_id']}"
        if row["body"] is None:
            yield seq, f"{what} names audit entry {seq}, which does not exist"
            continue
        entry = json.loads(row["body"])  # an entry of a verified chain: our own JSON
        if entry.get("kind") != "letter":
            yield seq, f"{what} names audit entry {seq}, which is a {entry.get('kind')} entry"
            continue
        for name, row_value, entry_value in (
            ("claim", row["claim_id"], entry.get("claim_id")),
            ("format", row["format"], entry.get("letter_format")),
            ("hash", row["sha256"], entry.get("letter_sha256")),
            ("issued at", row["issued_at"], entry.get("at")),
        ):
            if row_value != entry_value:
                yield (
                    seq,
                    f"{what} says {name} {row_value!r}, its audit entry {seq} says {entry_value!r}",
                )
                break
    entries = conn.execute(select(audit_log.c.seq, audit_log.c.claim_id, audit_log.c.body))
    for entry_row in entries:
        seq, claim_id, body = int(entry_row.seq), str(entry_row.claim_id), str(entry_row.body)
        if _kind(body) == "letter" and seq not in named:
            yield seq, f"audit entry {seq} (letter, claim {claim_id}) has no letter row"

"""The rows of service clients' calls (`api_calls`, clients.py) against their audit entries.

`audit verify` checks these beside the decision rows (audit_rows.py): each `api_call` entry
has its row, saying what it says, and each row names such an entry. A row deleted would let
the queries for a claim's decision in force read the call's entry as the decision (they read
past the entries these rows name); one added under a decision's entry would hide it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from sqlalchemy import Connection, exists, select

from claims_crew.store.service_tables import api_calls
from claims_crew.store.tables import audit_log

# An audit_log row that is no service client's call: for the queries that read a claim's
# decisions past its calls. NOT EXISTS looks each entry up by the key, where NOT IN would hash
# every call ever made for each query (the calls, one an API request, outgrow all else).
NOT_A_CALL = ~exists().where(api_calls.c.audit_seq == audit_log.c.seq)

# Each column of a call row, and the entry's field that must say the same.
_SAID = {
    "client": "client",
    "claim_id": "claim_id",
    "call": "call",
    "status": "call_status",
    "at": "at",
}


def problems(conn: Connection) -> Iterator[tuple[int, str]]:
    """Each problem found, with the entry it is charged to."""
    rows = {int(row.audit_seq): row for row in conn.execute(select(api_calls))}
    for entry_row in conn.execute(select(audit_log.c.seq, audit_log.c.body)):
        seq = int(entry_row.seq)
        entry = json.loads(entry_row.body)  # an entry of a verified chain: our own JSON
        row = rows.pop(seq, None)
        kind = entry.get("kind")
        if kind != "api_call":
            if row is not None:
                yield seq, f"the call row of {row.client} names audit entry {seq}, a {kind} entry"
            continue
        if row is None:
            yield seq, f"audit entry {seq} (api_call, client {entry.get('client')}) has no call row"
            continue
        wrote = tuple(entry.get(field) for field in _SAID.values())
        said = tuple(getattr(row, column) for column in _SAID)
        if said != wrote:
            yield seq, f"the call row of audit entry {seq} says {said}, the entry says {wrote}"
    for seq in rows:
        yield seq, f"a call row names audit entry {seq}, which does not exist"

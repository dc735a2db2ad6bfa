"""Service clients of the API in the real store (SQLite and PostgreSQL): tokens shown once and
kept as hashes, scopes, revoking, the rate limit every process shares, each call an audit entry,
Idempotency-Key answers, and documents that arrive later."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Executable, select

from claims_crew.api.guard import take_call
from claims_crew.errors import StoreError
from claims_crew.store import Store
from claims_crew.store.service_tables import api_calls, api_clients
from claims_crew.store.tables import audit_log
from tests.support.store_rows import table_rows

pytestmark = pytest.mark.usefixtures("engine")


def test_the_token_is_shown_once_and_only_its_hash_is_kept() -> None:
    store = Store()
    token = store.add_client("Core", ["submit", "read"], "human:lee")
    assert token.startswith("cc_") and len(token) > 40
    client = store.client_for_token(token)
    assert client is not None
    assert (client.name, client.scopes, client.revoked_at) == ("Core", {"read", "submit"}, None)
    assert client.created_by == "human:lee"
    with store.read() as conn:
        (row,) = conn.execute(select(api_clients)).mappings().all()
    assert row["token_sha256"] == hashlib.sha256(token.encode()).hexdigest()
    # The token itself is nowhere in the database.
    dumped = repr(table_rows(store.url))
    assert token not in dumped and token[3:] not in dumped


def test_unknown_and_revoked_tokens_answer_to_nobody() -> None:
    store = Store()
    token = store.add_client("core", ["read"], "human:lee")
    assert store.client_for_token("cc_" + "x" * 43) is None
    assert store.client_for_token("") is None
    assert store.revoke_client("CORE ", "human:lee") is True  # by its name's key
    assert store.client_for_token(token) is None
    assert store.revoke_client("core", "human:lee") is False  # revoked already
    assert store.revoke_client("nobody", "human:lee") is False
    (listed,) = store.clients()
    assert listed.revoked_at is not None and listed.revoked_by == "human:lee"


def test_names_are_unique_by_their_key_and_scopes_are_checked() -> None:
    store = Store()
    store.add_client("core", ["read"], "human:lee")
    with pytest.raises(StoreError, match="already exists"):
        store.add_client(" Core", ["read"], "human:lee")
    with pytest.raises(StoreError, match="unknown scope admin"):
        store.add_client("other", ["read", "admin"], "human:lee")
    with pytest.raises(StoreError, match="at least one scope"):
        store.add_client("other", [" "], "human:lee")
    with pytest.raises(StoreError, match="1-64 characters"):
        store.add_client("a:b", ["read"], "human:lee")
    assert [c.name for c in store.clients()] == ["core"]
    reader = store.add_client("reader", ["read"], "human:lee")
    found = store.client_for_token(reader)
    assert found is not None and found.scopes == {"read"} and "submit" not in found.scopes


def test_take_call_lets_per_minute_through_then_says_how_long_to_wait() -> None:
    store = Store()
    assert [take_call(store, "core", 3) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = take_call(store, "core", 3)
    assert 0.0 < wait <= 60.0
    # Refused calls are not counted: the wait does not grow while the client keeps knocking.
    assert take_call(store, "core", 3) <= wait
    # Another client has its own count.
    assert take_call(store, "other", 3) == 0.0


def test_threads_on_their_own_stores_share_one_count() -> None:
    Store().add_client("core", ["read"], "human:lee")  # the store exists before the threads

    def calls(_: int) -> list[float]:
        store = Store()
        try:
            return [take_call(store, "core", 25) for _ in range(10)]
        finally:
            store.close()

    with ThreadPoolExecutor(4) as pool:
        answers = [a for batch in pool.map(calls, range(4)) for a in batch]
    assert answers.count(0.0) == 25
    assert all(a > 0 for a in answers if a != 0.0)


def test_another_process_counts_in_the_same_window() -> None:
    store = Store()
    assert take_call(store, "core", 2) == 0.0
    code = (
        "from claims_crew.api.guard import take_call; from claims_crew.store import Store; "
        "print(take_call(Store(), 'core', 2))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert float(done.stdout) == 0.0
    assert take_call(store, "core", 2) > 0.0


def test_each_call_is_an_audit_entry_naming_the_client_and_the_chain_verifies() -> None:
    store = Store()
    entry = store.record_call("core", "POST /api/v1/claims", 202, "C-7", "ab" * 32)
    store.record_call("core", "GET /api/v1/claims", 200)
    assert (entry.kind, entry.client, entry.call, entry.call_status) == (
        "api_call",
        "core",
        "POST /api/v1/claims",
        202,
    )
    assert entry.actor == "client:core" and entry.claim_id == "C-7"
    assert store.audit_entries("C-7") == []  # a claim's trail lists its decisions
    assert [e.seq for e in store.audit_entries("C-7", calls=True)] == [entry.seq]
    with store.read() as conn:
        rows = conn.execute(select(api_calls).order_by(api_calls.c.audit_seq)).all()
    assert [(r.audit_seq, r.client, r.claim_id, r.status) for r in rows] == [
        (1, "core", "C-7", 202),
        (2, "core", "", 200),
    ]
    assert store.verify_audit().ok


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        (lambda: api_calls.delete(), "audit entry 1 (api_call, client core) has no call row"),
        (
            lambda: api_calls.update().values(status=200),
            "the call row of audit entry 1 says",
        ),
        (
            lambda: api_calls.insert().values(
                audit_seq=2, client="x", claim_id="C-7", call="GET /", status=200, at="t"
            ),
            "names audit entry 2, which does not exist",
        ),
    ],
)
def test_a_call_row_edited_under_the_chain_fails_audit_verify(
    statement: Callable[[], Executable], problem: str
) -> None:
    store = Store()
    store.record_call("core", "POST /api/v1/claims", 202, "C-7")
    with store.write() as conn:
        conn.execute(statement())
        assert conn.execute(select(audit_log.c.seq)).scalars().all() == [1]
    verdict = store.verify_audit()
    assert not verdict.ok and problem in str(verdict.problem)


def test_the_first_answer_to_an_idempotency_key_is_kept() -> None:
    store = Store()
    assert store.remembered("core", "k1") is None
    first = store.remember("core", "k1", "a" * 64, 202, '{"id":"C-7"}', "/api/v1/claims/C-7")
    again = store.remember("core", "k1", "b" * 64, 409, '{"code":"duplicate_id"}', None)
    assert again == first == store.remembered("core", "k1")
    assert (first.status, first.body, first.location) == (202, '{"id":"C-7"}', "/api/v1/claims/C-7")
    # Another client's key of the same name is its own.
    other = store.remember("other", "k1", "c" * 64, 400, "{}", None)
    assert other.status == 400 and store.remembered("core", "k1") == first


def test_documents_that_arrive_later_are_kept_once_in_order() -> None:
    store = Store()
    assert store.add_later_document("C-7", "receipt.pdf", "a" * 64, "Receipt: 120.00", "core")
    assert store.add_later_document("C-7", "photo.jpg", "b" * 64, "", "core")
    assert not store.add_later_document("C-7", "again.pdf", "a" * 64, "Receipt", "core")
    store.add_later_document("C-8", "receipt.pdf", "a" * 64, "Receipt: 120.00", "core")
    docs = store.later_documents("C-7")
    assert [(d.name, d.text, d.client) for d in docs] == [
        ("receipt.pdf", "Receipt: 120.00", "core"),
        ("photo.jpg", "", "core"),
    ]
    assert store.later_documents("C-9") == []

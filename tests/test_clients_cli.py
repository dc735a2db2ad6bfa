"""`claims-crew clients add | list | revoke` and `claims-crew webhooks deliveries` on the real
store (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from click.testing import CliRunner, Result

from claims_crew.cli import main
from claims_crew.store import Store
from claims_crew.vocabulary import stamp, utc_now
from claims_crew.webhook_events import WEBHOOK_EVENTS
from tests.support.outbox import append

pytestmark = pytest.mark.usefixtures("engine")


TERMINAL = {"TTY_COMPATIBLE": "1", "TERM": "xterm-256color", "COLUMNS": "120"}
CODES = re.compile(r"\x1b\[[0-9;]*m")


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def on_a_terminal(*args: str) -> str:
    """What a terminal shows, its colour codes left out."""
    result = CliRunner().invoke(main, list(args), env=TERMINAL)
    assert result.exit_code == 0, result.output
    return CODES.sub("", result.stdout)


def test_add_prints_the_token_once_and_it_signs_the_client_in() -> None:
    added = cli("clients", "add", "core", "--scope", "submit, read")
    assert added.exit_code == 0, added.output
    said, token = added.stdout.splitlines()
    assert said == "Client core added (read, submit). API token (shown once):"
    client = Store().client_for_token(token)
    assert client is not None and client.scopes == {"read", "submit"}
    assert client.created_by.startswith("cli:")

    as_json = cli("clients", "add", "reader", "--scope", "read", "--json")
    payload = json.loads(as_json.stdout)
    assert payload["client"]["scopes"] == ["read"] and payload["token"].startswith("cc_")
    assert Store().client_for_token(payload["token"]) is not None


def test_an_unknown_scope_or_a_taken_name_is_refused_and_nothing_is_kept() -> None:
    bad = cli("clients", "add", "core", "--scope", "read,admin")
    assert bad.exit_code == 2 and "unknown scope admin" in bad.stderr
    assert cli("clients", "add", "core").exit_code == 2  # --scope is required
    assert Store().clients() == []
    assert cli("clients", "add", "core", "--scope", "read").exit_code == 0
    taken = cli("clients", "add", "Core", "--scope", "read")
    assert taken.exit_code == 2 and "already exists" in taken.stderr
    assert [c.name for c in Store().clients()] == ["core"]


def test_list_and_revoke() -> None:
    token = Store().add_client("core", ["submit", "read"], "cli:ops")
    Store().add_client("reader", ["read"], "cli:ops")
    revoked = cli("clients", "revoke", "reader")
    assert revoked.exit_code == 0, revoked.output
    assert cli("clients", "revoke", "reader").exit_code == 3  # revoked already
    assert cli("clients", "revoke", "nobody").exit_code == 3

    listed = json.loads(cli("clients", "list", "--json").stdout)["clients"]
    assert [(c["name"], c["scopes"], c["revoked_by"] is not None) for c in listed] == [
        ("core", ["read", "submit"], False),
        ("reader", ["read"], True),
    ]
    lines = cli("clients", "list").stdout.splitlines()  # not a terminal: plain lines
    assert lines[0] == "core  read,submit  active"
    assert lines[1].startswith("reader  read  revoked ")
    assert Store().client_for_token(token) is not None
    table = on_a_terminal("clients", "list")
    assert "2 client(s)" in table and "┃ name" in table and "│ core " in table


def test_webhooks_deliveries_lists_each_with_its_status() -> None:
    store = Store()
    for claim_id in ("C-1", "C-2", "C-3"):
        append(store, "auto", claim_id)
    store.fan_out({"core": frozenset(WEBHOOK_EVENTS)})
    first, second, third = store.take_deliveries("sender", 10, lease_s=60)
    store.delivered(first.id, "sender", 204)
    later = stamp(utc_now() + timedelta(minutes=5))
    store.retry_later(second.id, "sender", 503, "503 Service Unavailable", later)
    store.retry_later(third.id, "sender", None, "connection refused", None)

    shown = json.loads(cli("webhooks", "deliveries", "--json").stdout)
    assert shown["counts"] == {"pending": 1, "delivered": 1, "failed": 1}
    assert [(d["claim_id"], d["status"]) for d in shown["deliveries"]] == [
        ("C-3", "failed"),
        ("C-2", "pending"),
        ("C-1", "delivered"),
    ]
    assert "payload" not in shown["deliveries"][0]
    failed = json.loads(cli("webhooks", "deliveries", "--status", "failed", "--json").stdout)
    assert [d["last_error"] for d in failed["deliveries"]] == ["connection refused"]

    lines = cli("webhooks", "deliveries").stdout.splitlines()
    assert lines[0] == "1 pending, 1 delivered, 1 failed"
    assert lines[1] == (
        f"{third.id} failed claim.decided C-3 -> core: 1 tries, last - (connection refused)"
    )
    assert lines[2].startswith(
        f"{second.id} pending claim.decided C-2 -> core: 1 tries, last 503 next "
    )
    assert cli("webhooks", "deliveries", "--status", "lost").exit_code == 2
    table = on_a_terminal("webhooks", "deliveries")
    assert "Deliveries: 1 pending, 1 delivered, 1 failed" in table
    assert "┃ endpoint" in table and "connection refused" in table

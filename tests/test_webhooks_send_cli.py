"""`claims-crew webhooks send`: one pass of the sender from the command line, for a machine that
decides claims without a server, on both engines, to a real local receiver that checks each
signature itself (tests/support/receiver.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from claims_crew.cli import main
from claims_crew.store import Store
from tests.support.outbox import append
from tests.support.receiver import Receiver, new_secret
from tests.support.service import SECRET_VARIABLE, webhook_config

pytestmark = pytest.mark.usefixtures("engine")


def send() -> Result:
    return CliRunner().invoke(main, ["webhooks", "send", "--json"])


def test_send_delivers_what_is_due_once_and_a_receiver_down_waits_in_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = new_secret()
    receiver = Receiver(secret)  # not listening yet: the connection is refused
    config = webhook_config(tmp_path / "config", receiver.url, ["claim.decided"])
    hooks = yaml.safe_load((config / "webhooks.yaml").read_text(encoding="utf-8"))
    (config / "webhooks.yaml").write_text(yaml.safe_dump(hooks | {"retry_s": [0]}), "utf-8")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    monkeypatch.setenv(SECRET_VARIABLE, secret)
    store = Store()
    append(store, "auto", "C-1")
    append(store, "escalated", "C-2")  # an event the endpoint does not want

    down = send()
    assert down.exit_code == 0, down.output
    # Fanned: the deliveries made, one (C-2's escalation goes to no endpoint).
    assert json.loads(down.output) == {"fanned": 1, "delivered": 0, "retrying": 1, "failed": 0}
    [waiting] = store.deliveries("pending")
    assert waiting.claim_id == "C-1" and "could not connect" in (waiting.last_error or "")

    receiver.listen()
    try:
        for _ in range(2):  # due again at once (retry_s [0]); the second pass finds nothing due
            assert send().exit_code == 0
    finally:
        receiver.close()
    got = receiver.snapshot()
    assert dict(got.accepted) == {waiting.event_id: 1} and got.rejected == 0
    assert store.delivery_counts()["delivered"] == 1


def test_send_without_the_secret_set_stops_before_sending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = webhook_config(tmp_path / "config", "http://127.0.0.1:9/hooks", ["claim.decided"])
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    append(Store(), "auto", "C-1")
    result = send()
    assert result.exit_code != 0
    assert SECRET_VARIABLE in result.output
    assert Store().deliveries() == []  # nothing fanned or tried

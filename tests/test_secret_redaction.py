"""No configured key leaves in error text: a gateway whose 401 echoes the Authorization header
puts the key in the provider's error, and that error is printed, stored and logged. Through
`claims-crew run` against the scripted server (the primary's key and the fallback's, on both
engines), and at unit level for every kind of key (settings/redact.py) and for a logged traceback.
"""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from sqlalchemy import MetaData, select

from claims_crew import settings
from claims_crew.cli import main
from claims_crew.cli._output import fail
from claims_crew.records import RunError
from claims_crew.run.claim_log import capturing, log_path
from claims_crew.settings.redact import configured_secrets, error_text, redact
from claims_crew.store import Store
from tests.support.openai_server import ChatRequest, Reply, StartServer, Status
from tests.support.provider import point_model_at, water_claims

PRIMARY_KEY = "sk-gw-primary-0123456789abcdef+/="
FALLBACK_KEY = "sk-gw-fallback-fedcba9876543210"


def echo_the_key(request: ChatRequest) -> Reply:
    """A gateway that refuses the key and quotes the request's Authorization header back."""
    sent = {name.lower(): value for name, value in request.headers.items()}
    return Status(401, f"invalid credentials: Authorization: {sent.get('authorization')}")


def stored_text(store: Store) -> str:
    """Every value of every row of every table in the store, as one text."""
    tables = MetaData()
    tables.reflect(store.engine)
    with store.engine.connect() as conn:
        return "\n".join(
            str(value)
            for table in tables.sorted_tables
            for row in conn.execute(select(table))
            for value in row
        )


def run_refused(tmp_path: Path) -> str:
    inbox = tmp_path / "inbox"
    water_claims(inbox, "K-1")
    result = CliRunner().invoke(
        main, ["run", "--inbox", str(inbox), "--concurrency", "1"], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 1, result.output
    return result.output + result.stderr


@pytest.mark.usefixtures("engine")
def test_a_key_echoed_by_a_gateway_is_nowhere_in_the_line_the_store_or_the_log(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = openai_server(echo_the_key)
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", PRIMARY_KEY)

    said = run_refused(tmp_path)

    assert server.calls, said
    # The gateway did quote it: what the run says names the variable instead.
    assert "[redacted: OPENAI_API_KEY]" in said
    log = log_path("K-1").read_text(encoding="utf-8")
    assert "401" in log
    record = Store().claim_record("K-1")
    assert record is not None and record.error is not None
    assert record.error.code == "invalid_key"
    for place in (said, stored_text(Store()), log):
        assert PRIMARY_KEY not in place
        assert quote(PRIMARY_KEY, safe="") not in place


@pytest.mark.usefixtures("engine")
def test_the_fallback_s_key_echoed_by_its_gateway_is_redacted_as_well(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    primary = openai_server(lambda _request: Status(500, "provider failure"))
    fallback = openai_server(echo_the_key)
    point_model_at(primary, monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", PRIMARY_KEY)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_MODEL", "openai/gpt-fallback")
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_BASE_URL", fallback.base_url)
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_API_KEY", FALLBACK_KEY)

    said = run_refused(tmp_path)

    assert fallback.calls, "the fallback was never asked"
    assert "[redacted: CLAIMS_CREW_FALLBACK_API_KEY]" in said
    log = log_path("K-1").read_text(encoding="utf-8")
    for place in (said, stored_text(Store()), log):
        assert FALLBACK_KEY not in place
        assert PRIMARY_KEY not in place


@pytest.mark.parametrize(
    "variable",
    [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "CLAIMS_CREW_FALLBACK_API_KEY",
        "POLICY_MODEL_API_KEY",
        "ADJUDICATOR_MODEL_API_KEY",
        "CLAIMS_CREW_AUDIT_KEY",
    ],
)
def test_every_configured_key_is_blanked_in_each_form_a_message_carries_it(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "k3y/with+odd=chars&0123456789"
    monkeypatch.setenv(variable, secret)
    for said in (
        f"Authorization: Bearer {secret}",
        f"GET /v1/models?key={quote(secret, safe='')}",
        f'{{"api_key": "{secret}"}}',
    ):
        redacted = redact(said)
        assert secret not in redacted and quote(secret, safe="") not in redacted
        assert f"[redacted: {variable}]" in redacted
    assert secret not in error_text(PermissionError(f"denied for {secret}"))
    assert secret not in RunError(code="invalid_key", message=f"401: {secret}").message


def test_the_audit_key_file_and_a_url_s_password_are_secrets_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hex_key = "ab" * 32
    key_file = settings.home() / "audit.key"
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.write_text(hex_key + "\n")
    monkeypatch.setenv("MODEL_BASE_URL", "https://team:gateway-pass-123@gw.example/v1")
    redacted = redact(f"signing with {hex_key} at https://team:gateway-pass-123@gw.example/v1")
    assert hex_key not in redacted and "gateway-pass-123" not in redacted
    assert "[redacted: the audit key file]" in redacted


def test_a_short_value_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value that short is no provider's key, and blanking it would blank that word anywhere."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    assert all(form != "test" for form, _ in configured_secrets())
    assert redact("a test message") == "a test message"


def test_a_traceback_in_the_claim_s_log_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "audit-key-0123456789-0123456789-0123"
    monkeypatch.setenv("CLAIMS_CREW_AUDIT_KEY", secret)

    def fails() -> None:
        raise RuntimeError(f"the gateway said: key {secret} refused")

    with capturing("L-1"):
        try:
            fails()
        except RuntimeError as exc:
            logging.getLogger("some.client").error("call failed: %s", exc, exc_info=exc)

    written = log_path("L-1").read_text(encoding="utf-8")
    assert "Traceback" in written and "in fails" in written
    assert secret not in written
    assert written.count("[redacted: CLAIMS_CREW_AUDIT_KEY]") == 2


def test_an_error_a_command_prints_is_redacted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", PRIMARY_KEY)
    with pytest.raises(SystemExit):
        fail("config", f"the probe failed: x-api-key {PRIMARY_KEY} refused", 2, as_json=True)
    printed = capsys.readouterr()
    assert PRIMARY_KEY not in printed.out + printed.err
    assert "[redacted: ANTHROPIC_API_KEY]" in printed.out and "[redacted" in printed.err

"""config/webhooks.yaml (webhooks/config.py): loaded, refused with the key or variable at
fault, and checked by `claims-crew config check` like the other files."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.webhook_events import DECISION_FIELDS, EVENTS, WEBHOOK_EVENTS
from claims_crew.webhooks.config import DEFAULT_RETRY_S, load_webhooks, secrets
from tests.support.import_graph import package_sources
from tests.support.paths import ROOT

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
ENDPOINT: dict[str, Any] = {
    "name": "core",
    "url": "https://claims.example.com/hooks/claims-crew",
    "secret_env": "CLAIMS_CREW_WEBHOOK_SECRET_CORE",
    "events": ["claim.decided", "claim.escalated"],
}


def config_with(tmp_path: Path, **data: Any) -> Path:
    folder = tmp_path / "config"
    shutil.copytree(ROOT / "config", folder)
    (folder / "webhooks.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return folder


def test_the_shipped_file_and_a_missing_one_mean_no_endpoints(tmp_path: Path) -> None:
    shipped = load_webhooks(ROOT / "config")
    assert shipped.endpoints == [] and shipped.wants() == {}
    assert tuple(shipped.retry_s) == DEFAULT_RETRY_S and shipped.timeout_s == 10
    # The waits between the eight tries: about a day in all.
    assert 20 * 3600 < sum(DEFAULT_RETRY_S) < 30 * 3600
    assert load_webhooks(tmp_path).endpoints == []


def test_an_endpoint_with_its_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", SECRET)
    config = load_webhooks(config_with(tmp_path, endpoints=[ENDPOINT], retry_s=[1, 2]))
    assert config.wants() == {"core": frozenset({"claim.decided", "claim.escalated"})}
    assert secrets(config) == {"core": SECRET}
    assert [config.next_wait(n) for n in (1, 2, 3)] == [1, 2, None]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"events": ["claim.paid"]}, r"endpoints\[0\]\.events\[0\]"),
        ({"events": []}, r"endpoints\[0\]\.events"),
        ({"url": "ftp://claims.example.com/x"}, r"endpoints\[0\]\.url"),
        ({"secret_env": "not a name"}, r"endpoints\[0\]\.secret_env"),
        ({"secret": SECRET}, r"endpoints\[0\]\.secret"),
    ],
)
def test_a_bad_endpoint_is_a_config_error_naming_its_key(
    tmp_path: Path, change: dict[str, Any], said: str
) -> None:
    folder = config_with(tmp_path, endpoints=[ENDPOINT | change])
    with pytest.raises(ConfigError, match=said):
        load_webhooks(folder)


def test_names_must_differ_and_waits_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="core used twice"):
        load_webhooks(config_with(tmp_path / "a", endpoints=[ENDPOINT, ENDPOINT]))
    with pytest.raises(ConfigError, match="every wait"):
        load_webhooks(config_with(tmp_path / "b", retry_s=[5, -1]))


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (None, "CLAIMS_CREW_WEBHOOK_SECRET_CORE is not set"),
        (
            "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            'CLAIMS_CREW_WEBHOOK_SECRET_CORE does not start with "whsec_"',
        ),
        ("whsec_***", 'CLAIMS_CREW_WEBHOOK_SECRET_CORE is not "whsec_" followed by base64'),
    ],
)
def test_an_unset_or_malformed_secret_is_a_config_error_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str | None, said: str
) -> None:
    if value is None:
        monkeypatch.delenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", raising=False)
    else:
        monkeypatch.setenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", value)
    config = load_webhooks(config_with(tmp_path, endpoints=[ENDPOINT]))
    with pytest.raises(ConfigError, match=f"webhook endpoint 'core': {said}"):
        secrets(config)


def check(folder: Path) -> tuple[int, list[dict[str, Any]]]:
    result = CliRunner().invoke(main, ["config", "check", "--json", "--config-dir", str(folder)])
    found = json.loads(result.output)["problems"]
    return result.exit_code, [p for p in found if p["file"] == "webhooks.yaml"]


def test_config_check_places_each_problem(tmp_path: Path) -> None:
    assert check(ROOT / "config") == (0, [])
    folder = config_with(tmp_path / "bad", endpoints=[ENDPOINT | {"events": ["claim.paid"]}])
    code, problems = check(folder)
    assert code != 0  # an error in the config: the check fails
    [problem] = problems
    assert problem["key"] == "endpoints[0].events[0]" and problem["severity"] == "error"
    assert problem["line"] is not None


def test_config_check_warns_of_an_unset_secret_and_refuses_a_malformed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = config_with(tmp_path, endpoints=[ENDPOINT])
    monkeypatch.delenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", raising=False)
    code, [problem] = check(folder)
    assert code == 0
    assert (problem["code"], problem["severity"]) == ("webhook_secret_unset", "warning")
    assert problem["key"] == "endpoints[0].secret_env"
    monkeypatch.setenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", "whsec_***")
    code, [problem] = check(folder)
    assert code != 0
    assert (problem["code"], problem["severity"]) == ("webhook_secret_malformed", "error")
    monkeypatch.setenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", SECRET)
    assert check(folder) == (0, [])


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:8080/hooks", "127.0.0.1 is a loopback address"),
        ("http://[::1]/hooks", "::1 is a loopback address"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
        ("http://[fe80::1]/hooks", "fe80::1 is a link-local address"),
        ("https://10.1.2.3/hooks", "10.1.2.3 is a private address"),
        ("https://192.168.0.10/hooks", "192.168.0.10 is a private address"),
        ("https://[fd12::1]/hooks", "fd12::1 is a private address"),
        ("http://0.0.0.0/hooks", "0.0.0.0 is an unspecified address"),
        ("http://224.0.0.1/hooks", "224.0.0.1 is a multicast address"),
        ("http://100.100.100.200/hooks", "100.100.100.200 is not a public address"),
        ("http://[::ffff:10.0.0.1]/hooks", "is a private address"),
        ("http://2130706433/hooks", "127.0.0.1 is a loopback address"),  # 127.0.0.1 as a number
    ],
)
def test_a_url_to_an_address_that_is_not_public_is_refused_unless_allowed(
    tmp_path: Path, url: str, said: str
) -> None:
    endpoint = ENDPOINT | {"url": url}
    with pytest.raises(ConfigError, match=r"endpoints\[0\]\.url") as refused:
        load_webhooks(config_with(tmp_path / "refused", endpoints=[endpoint]))
    assert said in str(refused.value) and "allow_private: true" in str(refused.value)
    allowed = load_webhooks(
        config_with(tmp_path / "allowed", endpoints=[endpoint | {"allow_private": True}])
    )
    assert allowed.endpoints[0].allow_private


def test_a_public_address_or_a_host_name_passes(tmp_path: Path) -> None:
    # A host name is looked up only when sent to (test_webhook_tries.py checks that part).
    urls = ("https://93.184.216.34/hooks", "https://claims.example.com/h", "http://localhost/")
    for n, url in enumerate(urls):
        folder = config_with(tmp_path / str(n), endpoints=[ENDPOINT | {"url": url}])
        assert str(load_webhooks(folder).endpoints[0].url) == url


def test_config_check_places_a_private_target_at_its_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", SECRET)
    metadata = ENDPOINT | {"url": "http://169.254.169.254/latest/meta-data/"}
    code, [problem] = check(config_with(tmp_path / "bad", endpoints=[metadata]))
    assert code != 0
    assert (problem["code"], problem["severity"]) == ("webhooks_private_target", "error")
    assert problem["key"] == "endpoints[0].url" and problem["line"] is not None
    assert "169.254.169.254 is a link-local address" in problem["message"]
    allowed = config_with(tmp_path / "ok", endpoints=[metadata | {"allow_private": True}])
    assert check(allowed) == (0, [])


def test_every_event_name_is_listed_once_with_when_and_its_data() -> None:
    assert tuple(kind.name for kind in EVENTS) == WEBHOOK_EVENTS
    assert all(kind.when and kind.data for kind in EVENTS)


def test_the_docs_table_of_events_is_the_list() -> None:
    """docs/webhooks.md's table: each event with its `when` as listed, and its data's keys."""
    page = (ROOT / "docs" / "webhooks.md").read_text(encoding="utf-8")
    section = page.split("## Events and their payloads", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z.]+)` \| (.+?) \| (.+?) \|$", section, flags=re.MULTILINE)
    shown = {name: (when, data) for name, when, data in rows}
    decision_fields = set(re.findall(r"`([a-z_]+)`", section.split("The decision fields", 1)[1]))
    assert set(shown) == set(WEBHOOK_EVENTS)
    for kind in EVENTS:
        when, data = shown[kind.name]
        assert when == kind.when, kind.name
        if data == "decision fields":
            assert kind.data == DECISION_FIELDS and set(DECISION_FIELDS) <= decision_fields
        else:
            assert re.findall(r"`([a-z_]+)`", data) == list(kind.data), kind.name


def test_the_webhook_secret_is_read_from_the_environment_in_one_place() -> None:
    """Only WebhookEndpoint.secret reads `secret_env`'s variable; the checker asks it."""
    reading = re.compile(r"(?:environ|getenv)\W[^\n]*secret_env")
    readers = [path for path, source in package_sources().items() if reading.search(source)]
    assert readers == ["webhooks/config.py"]

"""config/webhooks.yaml: the endpoints the claims system listens on, and how hard to try them.

    endpoints:
      - name: core
        url: https://claims.example.com/hooks/claims-crew
        secret_env: CLAIMS_CREW_WEBHOOK_SECRET_CORE
        events: [claim.decided, claim.escalated]
        allow_private: false    # true: the URL may lead to a loopback or private address
    retry_s: [5, 300, 1800, 7200, 18000, 36000, 36000]
    timeout_s: 10

A missing file means no endpoints: nothing is sent, and events are kept only in the outbox.
The secret itself is never in the file: `secret_env` names the environment variable that holds
it ("whsec_" + base64, as Standard Webhooks writes secrets), read when the sender starts, so an
unset or malformed one stops `serve` with a ConfigError naming the variable.

A URL whose host is a loopback, link-local, private or other non-public address is refused
unless its endpoint says `allow_private: true` (targets.py says which and why); a host name is
checked when it is sent to, once looked up.

`retry_s` is the wait after each failed try: a delivery is tried once, then once after each
wait, then given up (failed). The default follows the Standard Webhooks example schedule up to
about a day (27.6 hours from the first try to the last).
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    HttpUrl,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from claims_crew import settings
from claims_crew.errors import ConfigError, SecretUnset
from claims_crew.settings.yaml_files import model_from_yaml
from claims_crew.webhook_events import WebhookEvent
from claims_crew.webhooks.signing import SECRET_PREFIX, secret_key
from claims_crew.webhooks.targets import refused_host

FILE_NAME = "webhooks.yaml"
DEFAULT_RETRY_S: tuple[float, ...] = (5, 300, 1800, 7200, 18000, 36000, 36000)
DEFAULT_TIMEOUT_S = 10.0


class WebhookEndpoint(BaseModel):
    """One receiver: where it listens, the variable holding its secret, the events it wants."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    # Declared before url, so that url's check sees it.
    allow_private: bool = Field(
        False, description="Send to a loopback, link-local or private address (targets.py)."
    )
    url: HttpUrl = Field(description="http or https, to a public address.")
    secret_env: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    events: list[WebhookEvent] = Field(min_length=1)

    @field_validator("url")
    @classmethod
    def _public(cls, url: HttpUrl, info: ValidationInfo) -> HttpUrl:
        """An address in the URL must be public unless allow_private; a host name is looked
        up, and its addresses checked, on every try (sending.py)."""
        refused = refused_host(url.host or "")
        if refused is not None and not info.data.get("allow_private", False):
            raise PydanticCustomError(
                "private_target",
                "{refused}: webhooks go to public addresses only; set allow_private: true on "
                "this endpoint to send there",
                {"refused": refused},
            )
        return url

    def secret(self) -> str:
        """The endpoint's secret from its environment variable, the one place it is read;
        SecretUnset naming the variable when it is unset, ConfigError when it is not a Standard
        Webhooks secret."""
        value = os.environ.get(self.secret_env, "")
        if not value:
            raise SecretUnset(
                f"webhook endpoint {self.name!r}: {self.secret_env} is not set; set it to the "
                f'endpoint\'s secret ("{SECRET_PREFIX}" + base64)'
            )
        try:
            secret_key(value)
        except ValueError as exc:
            raise ConfigError(
                f"webhook endpoint {self.name!r}: {self.secret_env} {exc}; a secret is "
                f'"{SECRET_PREFIX}" + the base64 of 24 to 64 random bytes'
            ) from exc
        return value


class WebhooksConfig(BaseModel):
    """config/webhooks.yaml as loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    endpoints: list[WebhookEndpoint] = Field(default_factory=list)
    retry_s: list[float] = Field(default=list(DEFAULT_RETRY_S), max_length=50)
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0, le=300)

    @model_validator(mode="after")
    def _checked(self) -> WebhooksConfig:
        names = [e.name for e in self.endpoints]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"endpoint names must differ: {', '.join(twice)} used twice")
        if any(wait < 0 for wait in self.retry_s):
            raise ValueError("retry_s: every wait is 0 seconds or more")
        return self

    def wants(self) -> dict[str, frozenset[str]]:
        """Endpoint name → the event types it wants (what Store.fan_out takes)."""
        return {e.name: frozenset(e.events) for e in self.endpoints}

    def endpoint(self, name: str) -> WebhookEndpoint | None:
        return next((e for e in self.endpoints if e.name == name), None)

    def next_wait(self, tries: int) -> float | None:
        """The wait after the `tries`-th failed try (1-based); None once the waits are spent."""
        return self.retry_s[tries - 1] if tries <= len(self.retry_s) else None


def webhooks_path(config_dir: Path | None = None) -> Path:
    return (config_dir if config_dir is not None else settings.config_dir()) / FILE_NAME


def load_webhooks(config_dir: Path | None = None) -> WebhooksConfig:
    """config/webhooks.yaml, validated (a ConfigError naming each key at fault); without the
    file, no endpoints."""
    try:
        return model_from_yaml(webhooks_path(config_dir), WebhooksConfig, "file")
    except FileNotFoundError:
        return WebhooksConfig()


def secrets(config: WebhooksConfig) -> dict[str, str]:
    """Endpoint name → its secret, every one read and checked now (ConfigError otherwise)."""
    return {e.name: e.secret() for e in config.endpoints}

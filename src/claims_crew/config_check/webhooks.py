"""The checks of config/webhooks.yaml (optional): each mistake at its key and line, by the model
the sender loads it with (webhooks/config.py), then each endpoint's secret variable.

A secret set but malformed is an error: `serve` would refuse to start. One not set here is a
warning only: the secret lives in the environment `serve` runs in, which need not be the one
the check runs in.
"""

from __future__ import annotations

from dataclasses import replace

from claims_crew.config_check.problems import Problem
from claims_crew.config_check.source import Loaded, locate
from claims_crew.errors import ConfigError, SecretUnset
from claims_crew.webhook_events import WEBHOOK_EVENTS

HINT = (
    "each endpoint is {name, url (http or https), secret_env, events}; the events are "
    + ", ".join(WEBHOOK_EVENTS)
)


def check_webhooks(loaded: Loaded) -> list[Problem]:
    from claims_crew.webhooks.config import WebhooksConfig

    checked = loaded.check(WebhooksConfig)
    if checked.value is None:
        return [
            Problem(loaded.name, e.key, e.line, f"webhooks_{e.type}", e.msg, HINT)
            for e in checked.errors
        ]
    config = checked.value
    found = []
    for index, endpoint in enumerate(config.endpoints):
        path, line = locate(loaded.root, ["endpoints", index, "secret_env"])
        try:
            endpoint.secret()
        except ConfigError as exc:
            unset = isinstance(exc, SecretUnset)
            problem = Problem(
                loaded.name,
                path,
                line,
                "webhook_secret_unset" if unset else "webhook_secret_malformed",
                str(exc),
                "serve reads it when it starts",
            )
            found.append(replace(problem, severity="warning") if unset else problem)
    return found

"""Standard Webhooks signatures (https://www.standardwebhooks.com, "Signature scheme").

A delivery is signed with HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, keyed with
the endpoint's secret: "whsec_" and the key's bytes in base64. The `webhook-signature` header is
"v1," and the MAC in base64; several may be sent, space-separated (a secret being rotated), and a
receiver accepts the request when any one of them checks out. The timestamp is the try's, so a
receiver refuses one too far from its own clock: a captured request cannot be replayed later.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Mapping

from claims_crew.errors import ClaimsCrewError

SECRET_PREFIX = "whsec_"
VERSION = "v1"
# The specification's bounds on a symmetric secret: 24 to 64 bytes (192 to 512 bits).
MIN_SECRET_BYTES = 24
MAX_SECRET_BYTES = 64
TOLERANCE_S = 300


class WebhookSignatureError(ClaimsCrewError):
    """A webhook whose headers or signature do not check out; the message says which."""


def secret_key(secret: str) -> bytes:
    """The key a "whsec_…" secret stands for; ValueError, saying why, when it is not one."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f'does not start with "{SECRET_PREFIX}"')
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f'is not "{SECRET_PREFIX}" followed by base64') from exc
    if not MIN_SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise ValueError(
            f"holds {len(key)} bytes; a secret is {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES}"
        )
    return key


def _mac(key: bytes, msg_id: str, timestamp: int, body: bytes) -> bytes:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return hmac.new(key, signed, hashlib.sha256).digest()


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` value for `body` sent as `msg_id` at `timestamp` (Unix seconds)."""
    mac = _mac(secret_key(secret), msg_id, timestamp, body)
    return f"{VERSION},{base64.b64encode(mac).decode('ascii')}"


def verify(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    now: int | None = None,
    tolerance_s: int = TOLERANCE_S,
) -> None:
    """Check a received webhook as a receiver would: its three headers present, its timestamp
    within `tolerance_s` of `now` (default: the clock), and one of its signatures made with
    `secret` over exactly `body`. Raises WebhookSignatureError otherwise."""
    lowered = {name.lower(): value for name, value in headers.items()}
    msg_id = lowered.get("webhook-id")
    sent_at = lowered.get("webhook-timestamp")
    signatures = lowered.get("webhook-signature")
    if not msg_id or not sent_at or not signatures:
        raise WebhookSignatureError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        timestamp = int(sent_at)
    except ValueError as exc:
        raise WebhookSignatureError("webhook-timestamp is not a whole number") from exc
    current = int(time.time()) if now is None else now
    if abs(current - timestamp) > tolerance_s:
        raise WebhookSignatureError(
            f"webhook-timestamp is {current - timestamp} s from now; at most {tolerance_s} allowed"
        )
    try:
        key = secret_key(secret)
    except ValueError as exc:
        raise WebhookSignatureError(f"the secret {exc}") from exc
    expected = _mac(key, msg_id, timestamp, body)
    for signature in signatures.split():
        version, _, encoded = signature.partition(",")
        if version != VERSION:
            continue  # another scheme (v1a: asymmetric), not ours to check
        try:
            given = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(given, expected):
            return
    raise WebhookSignatureError("no webhook-signature matches the body and the secret")

"""Standard Webhooks signatures (webhooks/signing.py): the published test vector, and what a
receiver's check refuses."""

from __future__ import annotations

import base64

import pytest

from claims_crew.webhooks.signing import WebhookSignatureError, secret_key, sign, verify

# The signing test vector of the Standard Webhooks reference libraries: repository
# github.com/standard-webhooks/standard-webhooks, libraries/python/tests/test_webhooks.py,
# test_sign_function (the same values are in the other languages' tests there).
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TIMESTAMP = 1614265330
BODY = b'{"test": 2432232314}'
EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def headers(signature: str = EXPECTED, timestamp: int = TIMESTAMP) -> dict[str, str]:
    return {
        "webhook-id": MSG_ID,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature,
    }


def test_the_published_vector() -> None:
    assert sign(SECRET, MSG_ID, TIMESTAMP, BODY) == EXPECTED


def test_verify_accepts_the_vector_within_the_tolerance_and_any_header_case() -> None:
    verify(SECRET, headers(), BODY, now=TIMESTAMP)
    verify(SECRET, headers(), BODY, now=TIMESTAMP + 300)
    shouting = {name.title(): value for name, value in headers().items()}
    verify(SECRET, shouting, BODY, now=TIMESTAMP - 300)


def test_verify_accepts_one_good_signature_among_several() -> None:
    other = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
    verify(SECRET, headers(f"{other} v1a,abc= {EXPECTED}"), BODY, now=TIMESTAMP)


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="}, "no webhook"),
        ({"webhook-signature": "v2," + EXPECTED[3:]}, "no webhook-signature"),
        ({"webhook-signature": "v1,not base64!"}, "no webhook-signature"),
        ({"webhook-id": "msg_other"}, "no webhook-signature"),
        ({"webhook-timestamp": str(TIMESTAMP + 1)}, "no webhook-signature"),
        ({"webhook-timestamp": "soon"}, "not a whole number"),
        ({"webhook-id": ""}, "missing"),
    ],
)
def test_verify_refuses_a_wrong_signature_or_header(changed: dict[str, str], said: str) -> None:
    with pytest.raises(WebhookSignatureError, match=said):
        verify(SECRET, headers() | changed, BODY, now=TIMESTAMP)


def test_verify_refuses_another_body_or_secret() -> None:
    with pytest.raises(WebhookSignatureError):
        verify(SECRET, headers(), BODY + b" ", now=TIMESTAMP)
    other = "whsec_" + base64.b64encode(b"x" * 24).decode()
    with pytest.raises(WebhookSignatureError):
        verify(other, headers(), BODY, now=TIMESTAMP)


def test_verify_refuses_an_old_or_future_timestamp() -> None:
    with pytest.raises(WebhookSignatureError, match="301 s from now"):
        verify(SECRET, headers(), BODY, now=TIMESTAMP + 301)
    with pytest.raises(WebhookSignatureError, match="-301 s from now"):
        verify(SECRET, headers(), BODY, now=TIMESTAMP - 301)
    # The default clock is now: the vector's 2021 timestamp is far too old.
    with pytest.raises(WebhookSignatureError, match="from now"):
        verify(SECRET, headers(), BODY)


@pytest.mark.parametrize(
    ("secret", "said"),
    [
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 'does not start with "whsec_"'),
        ("whsec_not base64", "followed by base64"),
        ("whsec_" + base64.b64encode(b"short").decode(), "holds 5 bytes"),
        ("whsec_" + base64.b64encode(b"x" * 65).decode(), "holds 65 bytes"),
    ],
)
def test_a_secret_that_is_not_one_says_why(secret: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        secret_key(secret)
    with pytest.raises(WebhookSignatureError, match=said):
        verify(secret, headers(), BODY, now=TIMESTAMP)

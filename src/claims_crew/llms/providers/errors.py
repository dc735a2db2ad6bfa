"""What a provider's error means for the claim that met it and for the batch.

Every provider's SDK puts the HTTP status on its error (`status_code`), so the meanings are one
table for all of them; what differs by provider (its client's own timeout errors, the modules
that read its answers) is in its module and gathered here.

- hopeless: a key the provider refuses (401), a permission it does not grant (403), a model it
  does not know (404). Every claim would meet it, each after paying for its own attempt: the
  batch stops (run/batch_stop.py).
- rate_limited: still 429 after the client's retries: every process on the cap holds off for
  the provider's Retry-After, else one window (llms/rate_limit.py).
- provider failed: a 5xx after the client's retries, a call timed out, a connection not made or
  lost: the claim is reviewed again on the fallback model where one is set (llms/fallback.py).
- malformed_response: a body its client could not read (cut off or garbled).
All leave the claim for the next run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from claims_crew.llms.providers import PROVIDERS
from claims_crew.settings.redact import error_text, redact

# HTTP status a provider's refusal carries, and the failure code a claim records for it.
HOPELESS = {401: "invalid_key", 403: "permission_denied", 404: "model_not_found"}

# Clients that end the chain at a timeout error of their own, without the socket's behind it.
_TIMEOUT_ERRORS = frozenset(name for p in PROVIDERS for name in p.timeout_errors)

# The provider clients that read a response body: each provider's SDK, and the transports any
# of them may read through. A JSON error raised inside one of them is the provider's answer
# failing to parse, not a fault in this program or in what the model wrote (that is parsed by
# our code, and a parse failure of it is a reason code, not an error).
_PROVIDER_CLIENTS = frozenset(
    {"httpx", "litellm", *(module for p in PROVIDERS for module in p.client_modules)}
)


def causes(exc: BaseException) -> Iterator[BaseException]:
    """The error, then each error it was raised from or while handling, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def hopeless_code(errors: Iterable[BaseException]) -> str | None:
    """The failure code of a provider refusal that cannot get better, if one of `errors` is."""
    for cause in errors:
        status = getattr(cause, "status_code", None)
        if isinstance(status, int) and status in HOPELESS:
            return HOPELESS[status]
    return None


def stops_the_batch(code: str) -> bool:
    """Whether a claim's failure code is one every claim would meet (HOPELESS)."""
    return code in HOPELESS.values()


def failure_code(exc: BaseException) -> str:
    """`timeout` when a model call gave up waiting (the clients' timeout errors all stem from a
    socket's); `rate_limited` when the provider still answered 429 after the client's retries
    (every provider's SDK puts the HTTP status on its error); `malformed_response` when the
    provider's client could not read its answer (a body cut off or garbled); else
    `crew_failed`; `invalid_key`, `permission_denied` or `model_not_found` for a provider's
    401, 403 or 404, which also stop the batch (run/batch_stop.py). All leave the claim for the
    next run."""
    found = list(causes(exc))
    if any(_is_timeout(cause) for cause in found):
        return "timeout"
    if any(getattr(cause, "status_code", None) == 429 for cause in found):
        return "rate_limited"
    if (hopeless := hopeless_code(found)) is not None:
        return hopeless
    if malformed_response(exc) is not None:
        return "malformed_response"
    return "crew_failed"


def _is_timeout(cause: BaseException) -> bool:
    kinds = type(cause).__mro__
    return isinstance(cause, TimeoutError) or any(k.__name__ in _TIMEOUT_ERRORS for k in kinds)


def provider_failed(errors: Iterable[BaseException]) -> bool:
    """Whether an error is the provider failing to answer: a 5xx after the client's retries, a
    call timed out, or a connection that could not be made or was lost. A request the rate
    limit held until the claim's deadline (wire_gate.py) was never sent: not the provider's."""
    import httpx

    from claims_crew.llms.wire_gate import WireGateClosed

    errors = list(errors)
    if any(isinstance(cause, WireGateClosed) for cause in errors):
        return False
    for cause in errors:
        status = getattr(cause, "status_code", None)
        if isinstance(status, int) and 500 <= status < 600:
            return True
        if isinstance(cause, TimeoutError | ConnectionError | httpx.TransportError):
            return True
    return False


def retry_after(exc: BaseException) -> float | None:
    """The seconds a provider's 429 asked to wait (its Retry-After header), if it said."""
    for cause in causes(exc):
        headers = getattr(getattr(cause, "response", None), "headers", None)
        raw = headers.get("retry-after") if headers is not None else None
        try:
            seconds = float(raw) if raw is not None else None
        except ValueError:
            continue  # an HTTP date: the window stands in
        if seconds is not None and 0 < seconds < float("inf"):
            return seconds
    return None


def failure_message(exc: BaseException) -> str:
    """What the record says of a failure: the error as it was raised, or, for a response the
    provider's client could not read, that the provider sent it; every configured key blanked
    out (a gateway may echo the key it was sent in its error)."""
    if (unreadable := malformed_response(exc)) is not None:
        return redact(
            "the provider sent a malformed response (a body that is not the JSON its API "
            f"promises: cut off, or garbled): {unreadable}"
        )
    return error_text(exc)


def malformed_response(exc: BaseException) -> ValueError | None:
    """The JSON error of a provider response its client could not read, if that is what
    `exc` (or an error behind it) is."""
    for cause in causes(exc):
        if isinstance(cause, json.JSONDecodeError) and _raised_in_client(cause):
            return cause
    return None


def _raised_in_client(exc: BaseException) -> bool:
    trace = exc.__traceback__
    while trace is not None:
        module = str(trace.tb_frame.f_globals.get("__name__", ""))
        if module.partition(".")[0] in _PROVIDER_CLIENTS:
            return True
        trace = trace.tb_next
    return False

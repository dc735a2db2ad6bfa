"""The kinds of value a setting takes, each with the one sentence a bad value is refused with.

A value comes from the environment as text, or from a settings file as TOML (a number, a
boolean or text): every kind takes both. Its refusal is "expected ...", which
`loading.refusal` puts after the variable's name and the value given.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator

ON = ("1", "true", "yes", "on")
OFF = ("0", "false", "no", "off")


def _text(raw: Any) -> str:
    """The value as it would be written in the environment (TOML's true is "True")."""
    return str(raw).strip()


def blank(raw: Any) -> bool:
    """Unset: a value of spaces is no value (Declared drops it, so the default applies)."""
    return isinstance(raw, str) and not raw.strip()


def seconds(least: float, above: bool, *, zero_is_none: bool = False) -> BeforeValidator:
    """A number of seconds, finite, above `least` (or from it, when not `above`); with
    `zero_is_none`, 0 stands for "none" (a deadline turned off)."""
    if zero_is_none:
        expected = "expected a number of seconds above 0 (0: none)"
    elif above:
        expected = f"expected a number of seconds above {least:g}"
    else:
        expected = f"expected a number of seconds, {least:g} or more"

    def parse(raw: Any) -> float:
        try:
            value = float(_text(raw)) if not isinstance(raw, bool) else math.nan
        except ValueError:
            value = math.nan
        if zero_is_none and value == 0:
            return 0.0
        # NaN fails both comparisons, and infinity the second.
        if not ((value > least) if above else (value >= least)) or not value < math.inf:
            raise ValueError(expected)
        return value

    return BeforeValidator(parse)


def whole(least: int, most: int) -> BeforeValidator:
    """A whole number from `least` to `most`, written as digits only (no sign, no point)."""
    expected = f"expected a whole number from {least} to {most}"

    def parse(raw: Any) -> int:
        text = _text(raw) if not isinstance(raw, bool) else "-"
        if not text.isdigit() or not least <= int(text) <= most:
            raise ValueError(expected)
        return int(text)

    return BeforeValidator(parse)


def _switch(raw: Any) -> bool:
    text = _text(raw).lower()
    if text not in ON + OFF:
        raise ValueError("expected 1 or 0 (on or off)")
    return text in ON


def _text_value(raw: Any) -> str:
    if not isinstance(raw, str):
        raise ValueError("expected text")
    return raw.strip()


def _path(raw: Any) -> Path:
    return Path(_text_value(raw))


def _moment(raw: Any) -> datetime:
    """ISO 8601; a bare date is its midnight, and a time without a zone is UTC."""
    if isinstance(raw, datetime):
        moment = raw
    else:
        try:
            moment = datetime.fromisoformat(_text(raw).replace("Z", "+00:00"))
        except ValueError:
            raise ValueError("expected an ISO 8601 date or time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


Switch = Annotated[bool, BeforeValidator(_switch)]
Text = Annotated[str | None, BeforeValidator(_text_value)]
Folder = Annotated[Path | None, BeforeValidator(_path)]
Moment = Annotated[datetime | None, BeforeValidator(_moment)]

"""How a letter words what the store keeps: dates and sums of money in the claimants' locale, the
amount's steps as sentences, clause titles only where they are whole.

The locale and time zone are the team's, in config/letters/letters.yaml (read through
settings/yaml_files.py); without the file, British English and London time. Babel formats the
dates and sums by the locale's own CLDR patterns, so `6 December 2026` and `£50,000` in en_GB
are `6. Dezember 2026` and `50.000 €` in de_DE. Pure but for reading that one file.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator

from claims_crew.models import PayableStep
from claims_crew.vocabulary import PAID_ANSWER

if TYPE_CHECKING:
    from claims_crew.models import ClaimFile, Payable

SETTINGS_FILE = "letters.yaml"
# What payable.py says of a schedule item for no section in particular.
WHOLE_POLICY = "for the whole policy"
# What the policy reader puts at the end of a title it shortened (policy/line_shapes.py).
SHORTENED = "…"
_WORD_OF_VOCABULARY = re.compile(r"^[a-z]+(?:_[a-z]+)+$")
# An ISO date, or a timestamp that starts with one: what the store keeps, never prose.
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}(?:$|[T ]\d{2}:\d{2})")


class LetterStyle(BaseModel):
    """config/letters/letters.yaml: how letters write dates and money."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    locale: str = Field("en_GB", description="The claimants' locale (CLDR), such as en_GB.")
    time_zone: str = Field("Europe/London", description="The IANA time zone of dates.")

    @field_validator("locale")
    @classmethod
    def _known_locale(cls, value: str) -> str:
        from babel import Locale, UnknownLocaleError

        try:
            Locale.parse(value)
        except (UnknownLocaleError, ValueError) as exc:
            raise ValueError(f"{value!r} is not a locale babel knows (such as en_GB)") from exc
        return value

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"{value!r} is not a time zone (such as Europe/London)") from exc
        return value


class AmountInWords(BaseModel):
    """The amount as the claimant reads it: sums in their locale, each step a sentence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    claimed: str
    payable: str | None
    steps: list[str]


def load_style(folder: Path) -> LetterStyle:
    """The letters folder's letters.yaml; the defaults without it. A file that does not parse
    or check is a ConfigError naming its line."""
    from claims_crew.settings.yaml_files import model_from_yaml

    try:
        return model_from_yaml(folder / SETTINGS_FILE, LetterStyle, "letter settings")
    except FileNotFoundError:
        return LetterStyle()


def long_date(value: str, style: LetterStyle) -> str:
    """An ISO date or timestamp (as the store keeps them) as the locale writes a date in full;
    a timestamp's day is the day in the team's time zone. Text that is no date is kept as it is."""
    from babel.dates import format_date

    if not _ISO_DAY.match(value.strip()):
        return value
    try:
        if "T" in value or " " in value.strip():
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
            day = moment.astimezone(ZoneInfo(style.time_zone)).date()
        else:
            day = date.fromisoformat(value.strip())
    except ValueError:
        return value
    return format_date(day, "long", locale=style.locale)


def plain_value(value: str, style: LetterStyle) -> str:
    """A fact's value as a claimant reads it: a date in full, a word of the facts' vocabulary
    (`water_damage`) in words ("water damage"), anything else as written."""
    if _WORD_OF_VOCABULARY.match(value):
        return value.replace("_", " ")
    return long_date(value, style)


def money(amount: Decimal, currency: str, style: LetterStyle) -> str:
    """A sum as the locale writes it in `currency`: no pence on a whole amount (`£50,000`)."""
    from babel import Locale
    from babel.numbers import format_currency

    if amount == amount.to_integral_value():
        pattern = Locale.parse(style.locale).currency_formats["standard"].pattern
        whole = pattern.split(";")[0].replace(".00", "")
        return format_currency(amount, currency, whole, locale=style.locale, currency_digits=False)
    return format_currency(amount, currency, locale=style.locale)


def step_words(step: PayableStep, claimed: Decimal, currency: str, style: LetterStyle) -> str:
    """One step of the amount payable as a sentence a claimant reads."""
    figure = step.after if step.kind == "claimed" else None
    if figure is not None:
        return f"You claimed {money(figure, currency, style)}."
    where = "your policy" if step.note.endswith(WHOLE_POLICY) else "this section"
    before = money(step.before, currency, style)
    after = money(step.after, currency, style)
    if step.kind == "deductible":
        taken = money(step.before - step.after, currency, style)
        whose = (
            "Your policy's excess (deductible)"
            if where == "your policy"
            else ("The excess (deductible) for this section")
        )
        return f"{whose}, {taken}, is taken off, leaving {after}."
    name = "limit" if step.kind == "limit" else "sub-limit"
    cap = _cap(step.note, step.after)
    of_claim = "your claim" if step.before == claimed else "the amount so far"
    if step.after < step.before:
        return (
            f"Your policy's {name} for {_section(where)} is {money(cap, currency, style)}; "
            f"{of_claim} of {before} is more than that, so we pay up to {after}."
        )
    return (
        f"Your policy's {name} for {_section(where)} is {money(cap, currency, style)}; "
        f"{of_claim} of {before} is within it."
    )


def _section(where: str) -> str:
    return "all claims under it" if where == "your policy" else where


def _cap(note: str, fallback: Decimal) -> Decimal:
    """The limit's own figure, as payable.py names it in the note ("within the limit of 50000
    for 4"); the amount after the step where the note names none."""
    for word in note.split():
        try:
            return Decimal(word)
        except ArithmeticError:
            continue
    return fallback


def in_words(
    answer: str, payable: Payable | None, claim: ClaimFile, style: LetterStyle
) -> AmountInWords:
    """The sums a letter states, in the claimant's locale, and each step of the amount payable
    as a sentence ("Your policy's limit for this section is £50,000; your claim of £4,200 is
    within it.")."""
    if answer != PAID_ANSWER or payable is None:
        return AmountInWords(
            claimed=money(claim.amount, claim.currency, style), payable=None, steps=[]
        )
    currency = payable.currency
    return AmountInWords(
        claimed=money(claim.amount, claim.currency, style),
        payable=None if payable.amount is None else money(payable.amount, currency, style),
        steps=[step_words(step, claim.amount, currency, style) for step in payable.steps],
    )


def whole_title(title: str) -> str:
    """A clause title as a letter may state it: the title when whole; none where the policy
    reader shortened it (a long first line it took for a title), as a letter must never cut a
    word. The letter quotes the clause's words in full beneath, so nothing is lost."""
    return "" if title.rstrip().endswith(SHORTENED) else title

"""Every intake fact checked against the claim: the resolver does not take a fact on trust.

Intake names a source for each fact it states (models.FactSource). A fact that copies a field
of the claim file (date_of_loss, amount) is checked by equality with the file. Any other is
checked by its quote, which must speak of that fact, not only hold its value:

- it lies in one sentence of the claim's description or of the attachment it names, an
  ellipsis leaving out only a few words (quotes.FACT_QUOTES): "The damage … 3 November 2025"
  does not join a sentence about the damage to the date of another;
- a date's quote states that date, an amount's quote that amount;
- it holds one of the fact's cue words (resolution.yaml: fact_cues), so that "The plumber
  visited on 3 November 2025" is not taken for the day the damage started;
- a date's sentence speaks of the claimant's own loss: the cue's subject is not another
  person's or another property's (OTHERS_LOSS), so that "My neighbour's leak started on
  1 October 2025" is not taken for the day the claimant's damage started, whatever part of that
  sentence is quoted.

A fact whose source fails is unverified, and the rules treat it as unknown: a guessed date
decides a route as surely as a made-up clause would. Intake's first answer and its answer to
the targeted question are checked alike (targeted.py calls check_facts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from claims_crew.documents.record import PageText
from claims_crew.models import FactSource, IntakeFacts
from claims_crew.records.resolution import FactCheck
from claims_crew.resolver.case import Case
from claims_crew.resolver.config import FactCues
from claims_crew.resolver.quotes import (
    FACT_QUOTES,
    Passage,
    QuoteMiss,
    fold,
    quote_miss,
    quoted_sentence,
)
from claims_crew.vocabulary import DESCRIPTION_SOURCE, FACT_CLAIM_FIELDS, FACT_FIELDS, FactName

_MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_ORDINAL = r"(?:st|nd|rd|th)?"
_NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\d.,])\d+(?:\.\d+)?")

# Whose loss a date's sentence speaks of, read with the fact cues: words that make the event the
# cue names someone else's. A person outside the household in the possessive ("my neighbour's
# leak started", "the tenant's boiler burst", "my brother's car was stolen"), or another
# property ("the flat next door flooded"), as the subject of the cue: at most three words before
# it, in the same clause. The claimant's own things may be possessive ("my kitchen's pipe"), and
# household members' ("my son's bike") are often insured with them, so neither is listed; "the
# tenant's boiler failed and our damage started" names the claimant's damage after "and". A
# sentence that names another's property as the cue's subject although the damage is the
# claimant's ("my neighbour's tree fell on my garage") is left unverified too: then the targeted
# question or a person settles the date, the safe side to err on.
_OTHER_PERSON = (
    r"neighbou?rs?|brother(?:-in-law)?|sister(?:-in-law)?|parents?|mother|father|mum|mom|dad|"
    r"grand(?:mother|father|parents?|ma|pa)|nan|cousin|uncle|aunt(?:ie)?|nephew|niece|friend|"
    r"colleague|boss|employer|landlord|landlady|tenants?|lodgers?|flatmates?|housemates?|"
    r"roommates?|previous owners?|(?:some|any)(?:one|body) else"
)
_OTHERS = (
    rf"(?:{_OTHER_PERSON})(?:'s|s'|')|next door(?:'s)?|neighbou?ring (?:house|home|flat|"
    rf"property|building|garden|unit)|(?:another|other) (?:property|house|home|flat|building|"
    rf"unit|address)(?:'s)?"
)
# The marker, then at most three words before the cue; `_CLAUSE` cuts the words before the cue
# to its own clause first.
OTHERS_LOSS = re.compile(rf"(?<!\w)(?P<whose>{_OTHERS})(?: [\w'-]+){{0,3}} ?$")
_CLAUSE = re.compile(
    r"[,;:()]|\s(?:and|but|or|when|after|before|because|while|so|then|which|who|until)\s"
)

_MISSES: dict[QuoteMiss, str] = {
    "absent": "the quote is not in the {}",
    "across_sentences": "the quote joins more than one sentence of the {}",
    "wide_gap": f"the quote's ellipsis leaves out more than {FACT_QUOTES.max_gap_words} words "
    "of the {}",
}


def check_facts(case: Case, cues: FactCues) -> list[FactCheck]:
    """Each fact intake returned, verified, unverified (and why) or unknown; [] if unreadable."""
    facts = case.facts
    if not isinstance(facts, IntakeFacts):
        return []
    return [_check(case, facts, name, cues) for name in FACT_FIELDS]


def _check(case: Case, facts: IntakeFacts, name: FactName, cues: FactCues) -> FactCheck:
    value = getattr(facts, name)
    if value is None:
        return FactCheck(name=name, status="unknown")
    said = str(value)
    source = facts.sources.get(name)
    if source is None:
        return FactCheck(name=name, status="unverified", value=said, problem="no source given")
    page = _page_quoted(case, source)
    problem = _source_problem(case, name, value, source, cues.of(name), page)
    return FactCheck(
        name=name,
        status="unverified" if problem else "verified",
        value=said,
        where=source.where,
        quote=source.quote,
        problem=problem,
        page=page.number if page else None,
        ocr_confidence=page.quote_confidence(source.quote) if page else None,
    )


def _page_quoted(case: Case, source: FactSource) -> PageText | None:
    """The page of a PDF or image attachment the quote lies on (within one sentence); None
    when the quote is on none, or its source is not such an attachment."""
    if not source.quote.strip():
        return None
    for page in case.pages.get(source.where, ()):
        if quote_miss(source.quote, _claim_words(page.text)) is None:
            return page
    return None


def _source_problem(
    case: Case,
    name: FactName,
    value: object,
    source: FactSource,
    cues: tuple[str, ...],
    page: PageText | None = None,
) -> str | None:
    """Why the source does not bear the fact out; None when it does. A paged attachment's quote
    is checked on the `page` it lies on, so it never spans two pages."""
    claim_file = case.claim_file
    if source.where in FACT_CLAIM_FIELDS.values():
        if FACT_CLAIM_FIELDS.get(name) != source.where:
            return f"the claim file's {source.where} is not evidence of {name}"
        on_file = getattr(claim_file, source.where)
        if not same_as_file(value, on_file):
            return f"the claim file's {source.where} is {on_file}"
        return None
    if source.where == DESCRIPTION_SOURCE:
        text = claim_file.description
    elif page is not None:
        text = page.text
    elif source.where in case.attachments:
        text = case.attachments[source.where]
    else:
        return f"the claim has no attachment {source.where!r}"
    if not source.quote.strip():
        return f"no quote from the {source.where}"
    if (miss := quote_miss(source.quote, _claim_words(text))) is not None:
        return _MISSES[miss].format(source.where)
    if isinstance(value, date) and not states_date(source.quote, value):
        return f"the quote does not state {value.isoformat()}"
    if isinstance(value, float) and not states_amount(source.quote, value):
        return f"the quote does not state {value:g}"
    if cues and not names_fact(source.quote, cues):
        listed = ", ".join(cues[:4]) + (", …" if len(cues) > 4 else "")
        return f"the quote does not speak of {name}: it has none of the words {listed}"
    if isinstance(value, date) and (whose := others_loss(source.quote, _claim_words(text), cues)):
        return f"the quote's sentence speaks of another's loss ({whose!r}), not the claimant's"
    return None


@lru_cache(maxsize=64)
def _claim_words(text: str) -> Passage:
    """A description or attachment as fact quotes are matched against it: every fact quoted
    from it, and every case resolved again on the same claim, reads it once."""
    return FACT_QUOTES.read(text)


def names_fact(quote: str, cues: tuple[str, ...]) -> bool:
    """The quote holds one of the cues as whole words ("since", not "sincerely")."""
    return _cue_pattern(cues).search(fold(quote)) is not None


@lru_cache(maxsize=16)
def _cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(re.escape(cue) for cue in cues)
    return re.compile(rf"(?<!\w)(?:{words})(?!\w)")


def others_loss(quote: str, passage: Passage, cues: tuple[str, ...]) -> str | None:
    """The words of the quote's sentence that make the event its cue names someone else's
    ("neighbour's", "next door"); None when it is the claimant's own. Without cues, the words
    just before the quote's end are read."""
    found = quoted_sentence(quote, passage)
    if found is None:
        return None
    sentence, start = found
    end = start + len(fold(quote))
    if cues and (cue := _cue_pattern(cues).search(sentence, start)) is not None:
        end = cue.start()
    clause = _CLAUSE.split(sentence[:end])[-1]
    other = OTHERS_LOSS.search(clause)
    return other.group("whose") if other else None


def same_as_file(value: object, on_file: object) -> bool:
    """Intake's value equals the claim file's (an amount read as a float against the Decimal)."""
    if isinstance(on_file, Decimal) and isinstance(value, float):
        return Decimal(str(value)) == on_file
    return value == on_file


def _date_forms(day: date) -> Iterator[str]:
    """Regular expressions for `day` as people write it, on folded (lower-case) text."""
    d, m, y = day.day, day.month, day.year
    month = _MONTHS[m - 1]
    name = f"(?:{month}|{month[:3]}{'|sept' if m == 9 else ''})\\.?"
    days = f"0?{d}" if d < 10 else str(d)
    months = f"0?{m}" if m < 10 else str(m)
    yield f"{y}-{m:02d}-{d:02d}"
    yield f"{y}/{m:02d}/{d:02d}"
    yield f"{days}{_ORDINAL}(?: of)? {name},? {y}"
    yield f"{name} {days}{_ORDINAL},? {y}"
    yield f"{days}[/.-]{months}[/.-]{y}"
    if d > 12 or d == m:  # month first only where it cannot be read day first
        yield f"{months}[/.-]{days}[/.-]{y}"


def states_date(quote: str, day: date) -> bool:
    """The quote writes `day` in a common form: 2025-11-02, 2 November 2025, Nov 2, 2025,
    02/11/2025 (day first; month first only where that cannot be misread)."""
    text = fold(quote)
    forms = "|".join(_date_forms(day))
    return re.search(f"(?<![\\w/.-])(?:{forms})(?![\\w/-]|\\.\\d)", text) is not None


def states_amount(quote: str, amount: float) -> bool:
    """The quote writes `amount`, with or without thousands commas and pence."""
    wanted = Decimal(str(amount))
    for number in _NUMBER.findall(quote):
        try:
            if Decimal(number.replace(",", "")) == wanted:
                return True
        except InvalidOperation:
            continue
    return False

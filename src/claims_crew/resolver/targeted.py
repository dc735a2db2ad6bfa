"""Level 1, evidence alignment: the facts a conflict turns on, asked of intake once, checked.

When both sides' evidence holds but their answers differ while facts are open, the cheapest
thing that can settle it is the missing fact itself, not a debate. The conflict rule names those
facts (Resolution.missing_facts); `question_for` turns them into one question, and
`apply_answer` takes intake's answer: each fact's source is checked by the same check intake's
first answer had (fact_sources.check_facts), only a fact it bears out replaces the open one,
and then the rules run again on the case as corrected. The claim may now agree, go to the
adjudicator, or still be escalated; an answer that does not check out changes nothing but the
record, and the claim is escalated with the question, as it would have been.

Pure like the rest of the resolver: the model call is its level's (run/levels/targeted.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from claims_crew.models import FactAnswer, IntakeFacts, ParseFailure, TargetedAnswer
from claims_crew.records.resolution import FactCheck, Resolution, TargetedEvidence
from claims_crew.resolver.case import Case
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.fact_sources import check_facts
from claims_crew.resolver.facts import FACT_QUESTIONS
from claims_crew.resolver.rules import resolve
from claims_crew.vocabulary import FACT_FIELDS, FactName, ReasonCode


def facts_to_ask(resolution: Resolution, config: ResolutionConfig) -> list[FactName]:
    """The facts to ask intake about: those the conflict rule escalated over, when level 1 is on
    and nothing has been asked yet; [] otherwise."""
    if (
        not config.targeted_evidence.enabled
        or resolution.targeted is not None
        or resolution.rule != "conflict"
        or resolution.outcome != "ESCALATED"
    ):
        return []
    return list(resolution.missing_facts)


def question_for(facts: Sequence[FactName]) -> str:
    """One question naming exactly these facts, asking for the claim's own words or null."""
    asked = " ".join(FACT_QUESTIONS[name] for name in facts)
    return (
        f"{asked} For each of {', '.join(facts)}: give its value and quote the sentence of the "
        "claim or its attachments that states it, naming where (description, or the "
        "attachment's file name); or answer null if the claim does not say."
    )


def apply_answer(
    case: Case,
    config: ResolutionConfig,
    before: Resolution,
    facts: Sequence[FactName],
    question: str,
    raw: str,
    answer: TargetedAnswer | ParseFailure,
) -> tuple[Case, Resolution]:
    """The case with every asked fact the claim bears out, and its resolution: the rules run
    again when a fact was verified; else `before`, escalated as it was. Either carries the
    question, the answer and its checks (Resolution.targeted)."""
    checks: list[FactCheck] = []
    corrected = case.facts
    if isinstance(answer, TargetedAnswer) and isinstance(corrected, IntakeFacts):
        for given in _first_per_fact(answer, facts):
            check, candidate = _check_one(case, corrected, given, config)
            checks.append(check)
            if candidate is not None:
                corrected = candidate
    verified = any(c.status == "verified" for c in checks)
    if verified:
        case = replace(case, facts=corrected)
        after = resolve(case, config)
    else:
        unverified: list[ReasonCode] = (
            ["fact_unverified"] if any(c.status == "unverified" for c in checks) else []
        )
        after = before.with_reason_codes(list(dict.fromkeys([*before.reason_codes, *unverified])))
    evidence = TargetedEvidence(
        question=question,
        facts=list(facts),
        raw=raw,
        parse_error=answer.reason if isinstance(answer, ParseFailure) else None,
        answers=checks,
        verified=verified,
        settled=verified and after.rule != "conflict",
        before=before,
    )
    return case, after.with_targeted(evidence)


def _first_per_fact(answer: TargetedAnswer, facts: Sequence[FactName]) -> list[FactAnswer]:
    """The first answer for each fact asked; answers about facts not asked are ignored."""
    seen: dict[FactName, FactAnswer] = {}
    for given in answer.answers:
        if given.fact in facts and given.fact not in seen:
            seen[given.fact] = given
    return [seen[name] for name in facts if name in seen]


def _check_one(
    case: Case, facts: IntakeFacts, given: FactAnswer, config: ResolutionConfig
) -> tuple[FactCheck, IntakeFacts | None]:
    """The answer's check, and the facts with it when its source checks out (else None): the
    same check as intake's first answer, with the same cue words."""
    name = given.fact
    if given.value is None:
        return FactCheck(name=name, status="unknown"), None
    data: dict[str, Any] = facts.model_dump()
    data[name] = given.value
    if given.source is not None:
        data["sources"] = {**data["sources"], name: given.source.model_dump()}
    else:
        data["sources"].pop(name, None)
    try:
        candidate = IntakeFacts.model_validate(data)
    except ValidationError:
        problem = f"{given.value!r} is not a valid {name}"
        return FactCheck(
            name=name, status="unverified", value=str(given.value), problem=problem
        ), None
    candidate.unknowns = [n for n in FACT_FIELDS if getattr(candidate, n) is None]
    checks = check_facts(replace(case, facts=candidate), config.fact_cues)
    [check] = [c for c in checks if c.name == name]
    return check, candidate if check.status == "verified" else None

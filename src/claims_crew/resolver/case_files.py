"""CASE.json: one resolver case written out by hand, so the rules can be run with no model.

    {"policy": "<policy id or PDF path>",
     "claim_file": {...ClaimFile...},
     "facts": {...IntakeFacts...},
     "claims": {"policy": {...Claim...}, "fraud": {...Claim...}},
     "attachments": {"<file name>": "<its text>", ...},            (optional)
     "unread": [{...UnreadPart...}, ...],   parts intake could not read (optional)
     "ledger": [{"agent": "policy", "tool": "policy_lookup", "args": {...},
                 "returned": ["4.2(b)"]}, ...]}

The case's shape is checked strictly: a missing key or a bad claim file is an error that names
the key. An agent's answer, though, is read the way a model's answer is: a NaN confidence or an
answer outside the allowed outcomes becomes a parse_error for the resolver to deal with, because
that is what the rules must be shown to handle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claims_crew.documents.record import UnreadPart
from claims_crew.errors import CaseError, validation_problems
from claims_crew.models import ClaimFile, LedgerEntry, parse_claim, parse_intake
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver.case import Case
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.reread import read_case
from claims_crew.vocabulary import SIDES, TASK_OF, Side

LOOKUP_TOOL = "policy_lookup"


class CaseLedgerEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: Side
    tool: str
    args: dict[str, Any] | str = Field(default_factory=dict)
    returned: list[str] = Field(default_factory=list)


class CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy: str = Field(min_length=1)
    claim_file: ClaimFile
    facts: dict[str, Any] | str
    claims: dict[Side, dict[str, Any] | str]
    ledger: list[CaseLedgerEntry] = Field(default_factory=list)
    attachments: dict[str, str] = Field(
        default_factory=dict,
        description="The claim's attachments as the intake agent read them, by file name.",
    )
    unread: list[UnreadPart] = Field(
        default_factory=list,
        description="The parts inside its attachments that intake could not read.",
    )


def _as_text(value: dict[str, Any] | str) -> str:
    # A model's answer arrives as text; written as an object, it is read the same way.
    return value if isinstance(value, str) else json.dumps(value)


def parse_case_file(path: Path) -> CaseFile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CaseError(f"{path}: no such file") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CaseError(f"{path}: not valid JSON: {exc}") from exc
    try:
        case = CaseFile.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(validation_problems(exc, "case"))
        raise CaseError(f"{path}: {problems}") from exc
    if missing := set(SIDES) - set(case.claims):
        raise CaseError(f"{path}: claims: missing {', '.join(sorted(missing))}")
    return case


def load_case(path: Path, library: PolicyLibrary, config: ResolutionConfig) -> Case:
    """A case file as the resolver's input, with every cited clause re-read from the policy and
    the exclusions the claim's words fit searched for."""
    case_file = parse_case_file(path)
    allowed = config.allowed_answers
    policy = parse_claim(_as_text(case_file.claims["policy"]), allowed)
    fraud = parse_claim(_as_text(case_file.claims["fraud"]), allowed)
    ledger = [
        LedgerEntry(
            task_id=f"case:{e.agent}",
            task_name=TASK_OF[e.agent],
            agent_role=e.agent,
            tool=e.tool,
            args=e.args,
            # Only what the lookup tool returned counts as tool-sourced.
            returned_clause_ids=e.returned if e.tool == LOOKUP_TOOL else [],
        )
        for e in case_file.ledger
    ]
    return read_case(
        library,
        config,
        case_file.claim_file,
        parse_intake(_as_text(case_file.facts)),
        (policy, fraud),
        ledger,
        case_file.attachments,
        policy_ref=case_file.policy,
        unread=case_file.unread,
    )

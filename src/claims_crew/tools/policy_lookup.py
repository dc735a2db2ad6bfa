"""`policy_lookup`: the CrewAI tool through which agents read a policy's clauses.

Every answer names the clauses it returned on lines that start with ``clause_id:``, so the
provenance code can tell from the tool's output alone which clauses an agent has really seen.
Misses and unreadable policies come back as text the agent can act on, never as exceptions.

Built for a claim, the tool reads the claim's wording in force (its issued policy's form with
the endorsements effective on the date of loss applied), so an agent quotes the words the
resolver re-reads; a clause an endorsement changed says which one, on an `amended_by:` line.

The arguments take a clause id or search words, either one. CrewAI sends tools to providers as
strict schemas, where every key is required and an unused one is null, so each of the two says
so in its description; a call with neither is refused by the arguments' own validation, and
CrewAI hands that reason back to the agent as the tool's answer.
"""

from __future__ import annotations

import re
from datetime import date

from crewai.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from claims_crew.errors import PolicyError
from claims_crew.policy.amend import Amendment
from claims_crew.policy.changes import DONE
from claims_crew.policy.document import LookupMiss, PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.schema_cache import SchemaCached

MAX_TEXT_CHARS = 6000
_CLAUSE_ID_LINE = re.compile(r"^clause_id: (?P<id>.+?)(?: \|.*)?$", re.MULTILINE)


NEITHER = (
    "give clause_id (a clause id, e.g. 4.2(b)) to read one clause, or query (words) to search "
    "the policy: both are empty"
)


class PolicyLookupArgs(SchemaCached):
    """Arguments of policy_lookup: a policy id and either a clause id or search words."""

    model_config = ConfigDict(extra="forbid")

    policy_id: str = Field(description="The claim's policy id, e.g. HM-HOME-001.")
    clause_id: str | None = Field(
        None,
        description="A clause id or label as printed, e.g. 4.2(b) or Section I A.1; "
        "null to search with query instead.",
    )
    query: str | None = Field(
        None,
        description="Words to search for when the clause id is unknown; null when giving "
        "clause_id.",
    )

    @model_validator(mode="after")
    def _clause_or_words(self) -> PolicyLookupArgs:
        if not (self.clause_id or "").strip() and not (self.query or "").strip():
            raise ValueError(NEITHER)
        return self


def clause_ids_in(output: str) -> list[str]:
    """The clause ids a policy_lookup answer returned, in order."""
    return [m["id"] for m in _CLAUSE_ID_LINE.finditer(output)]


class PolicyLookupTool(BaseTool):
    name: str = "policy_lookup"
    description: str = (
        "Read the insurance policy. Give policy_id and clause_id to get that clause's exact text, "
        "kind (grant, exclusion, condition, limit, definition, other) and page; or give policy_id "
        "and query (words) to find the clauses that mention them. Cite only clause ids this tool "
        "returned."
    )
    args_schema: type[BaseModel] = PolicyLookupArgs
    allowed_policies: frozenset[str] | None = Field(
        None, description="When set, the only policy ids this tool will open."
    )
    # The claim's issued policy and date of loss: the wording in force the tool reads.
    policy_number: str | None = None
    date_of_loss: date | None = None
    search_limit: int = 5
    _library: PolicyLibrary | None = PrivateAttr(None)

    def __init__(self, library: PolicyLibrary | None = None, **data: object) -> None:
        super().__init__(**data)
        self._library = library

    @property
    def library(self) -> PolicyLibrary:
        if self._library is None:
            self._library = PolicyLibrary()
        return self._library

    def _run(self, policy_id: str, clause_id: str | None = None, query: str | None = None) -> str:
        if self.allowed_policies is not None and policy_id not in self.allowed_policies:
            allowed = ", ".join(sorted(self.allowed_policies))
            return f"Policy {policy_id!r} is not this claim's policy. Use policy_id {allowed}."
        try:
            doc = self._wording(policy_id)
        except PolicyError as exc:
            return f"Policy {policy_id!r} cannot be read [{exc.code}]: {exc.message}"
        if clause_id and clause_id.strip():
            return self._show(doc, policy_id, clause_id)
        return self._search(doc, policy_id, query or "")

    def _wording(self, policy_id: str) -> PolicyDocument:
        """The claim's wording in force when the tool was built for a claim, else the form."""
        if self.date_of_loss is None:
            return self.library.open(policy_id)
        return self.library.for_claim(policy_id, self.policy_number, self.date_of_loss)

    def _show(self, doc: PolicyDocument, policy_id: str, reference: str) -> str:
        found = doc.lookup(reference)
        if isinstance(found, LookupMiss):
            return (
                f"No clause {reference!r} in policy {policy_id}. "
                + (f"Near ids: {', '.join(found.near)}. " if found.near else "")
                + "Try one of those, or search by words with query."
            )
        text = doc.full_text(found.id)
        amendment = doc.amendments.get(found.id)
        if amendment is not None and amendment.kind == "delete":
            text = f"[deleted by {amendment.where()}: no longer in force]"
        if len(text) > MAX_TEXT_CHARS:
            subs = ", ".join(c.id for c in doc.children(found.id))
            text = f"{text[:MAX_TEXT_CHARS]}\n[… cut; read its sub-clauses one by one: {subs}]"
        return (
            f"clause_id: {found.id}\n"
            f"policy_id: {policy_id}\n"
            f"label: {found.label or '-'}\n"
            f"title: {found.title}\n"
            f"kind: {found.kind}\n"
            f"pages: {', '.join(map(str, found.pages))}\n"
            f"parent: {found.parent or '-'}\n"
            + (f"amended_by: {amended_by(amendment)}\n" if amendment else "")
            + f"text:\n{text}"
        )

    def _search(self, doc: PolicyDocument, policy_id: str, query: str) -> str:
        hits = doc.search(query, self.search_limit)
        if not hits:
            return f"No clause of policy {policy_id} matches {query!r}. Try other words."
        lines = [f"Clauses of policy {policy_id} matching {query!r}, best first:"]
        lines += [
            f"clause_id: {h.clause.id} | kind: {h.clause.kind} | pages: "
            f"{', '.join(map(str, h.clause.pages))}"
            + (f" | amended_by: {amended_by(a)}" if (a := doc.amendments.get(h.clause.id)) else "")
            + f" | {h.snippet}"
            for h in hits
        ]
        lines.append("Look up a clause_id to read its exact text before citing it.")
        return "\n".join(lines)


def amended_by(amendment: Amendment) -> str:
    """An endorsement's change as the tool names it: "endorsement HM-E-07 (page 1), replaced"."""
    return f"{amendment.where()}, {DONE[amendment.kind]}"

"""The resolver: what the policy and fraud agents' answers mean, decided by rules, not a model.

The rules, in order (docs/resolver.md):
  checks   answers parsed and allowed; the policy exists and is in force  → else ESCALATED
  reread   every cited clause re-read: exists, quote in it, kind supports the answer
  abstain  an agent answered uncertain (one, or both: resolution.yaml)    → ESCALATED
  agree    same answer, both sides' evidence holds, confident enough, and
           for covered every exclusion the claim's words fit read by an agent → ACCEPTED,
           else ESCALATED (exclusion_unchecked names the unread exclusions)
  prefer   only one side's evidence holds, it reaches the floor and, for covered, answers
           the fitting exclusions  → PREFERRED; a dispute when one fits the loser's not_covered
  conflict both hold, answers differ, a fact is unknown, unverified
           (fact_unverified: its source is not in the claim) or disputed   → ESCALATED; with
           targeted_evidence on, intake is first asked once about those facts (targeted.py)
           and the rules run again on any fact whose quote checks out
  dispute  both hold, answers differ, every fact known                → ADJUDICATION_REQUIRED;
           with debate.rounds 1, each side first sees the other's claim once (debate.py)
  neither  no side's evidence holds                                    → ESCALATED
  gates    no supporting clause from policy_lookup on the winning side; amount, red flags,
           risk class, non-automatic outcome, a covered amount payable over the
           automatic authority limit (over_authority), a part of an attachment
           intake could not read that is not decoration (unread_part)   → ESCALATED

Agreement needs verified evidence too: two agents that obey the same injected instruction agree
confidently, and the re-read tells a made-up or misquoted clause apart from a real agreement.
It cannot tell a genuine grant from a reading that never asked whether the claim is excluded:
so the exclusions the claim's words fit (found by the policy search, exclusions.py) must have
been read by an agent before covered stands. And verified is not looked up: a quote that
re-reads true may come from a model's memory, so an outcome that would stand without a person
must rest on a clause the lookup tool returned to the winning side.

The rules are pure: no CrewAI, no I/O, no clock. The clauses the agents cite are read from the
PDF before the rules run (reread.py) and handed in as a PolicyView, so the same case always
resolves the same way and a table of cases can test every rule.

  case.py          the case the rules read (Case, PolicyView, ReadClause)
  (records/resolution.py: what they return, Resolution, SideReview, ClauseCheck, the trail and
  the typed constructors and methods every outcome change goes through; a record the store
  keeps, so it lives below both. It is exported here as the rules' answer.)
  quotes.py        quote matching (fold, quote_in): how a quote must sit in a clause or a
                   claim's words (CLAUSE_QUOTES, FACT_QUOTES)
  evidence.py      each side's cited clauses checked, and which came from the lookup tool
  exclusions.py    the exclusions the claim's words fit that no agent read (exclusion_unchecked)
  fact_sources.py  each intake fact's source checked against the claim's own words
  facts.py         the facts a conflict or an abstention asks a person about
  rules/           the rules as a list (RULES), one module each, named for its rule: each reads
                   the Context (rules/context.py) and decides or passes; resolve() walks the
                   list in the order above, then the gates (resolve, policy_checks)
  gates.py         provenance and resolution.yaml's gates on outcomes that would stand alone
  payable.py       the amount payable from a schedule (Payable, its steps), pure
  deciding.py      the clauses a decision rests on, in the one order the amount, the letter
                   and the external code read them
  authority.py     a decision's deciding clause and amount, and the authority limit
  external_codes.py config/reason_codes.yaml: answers and reason codes in a team's codes
  adjudication.py  the adjudicator's answer to a dispute, checked (apply_adjudication)
  targeted.py      level 1: the conflict's open facts asked of intake once, the answer checked
  debate.py        one debate round before the adjudicator, and the rules run again
  config.py        config/resolution.yaml, validated
  reread.py        the only I/O: the cited clauses looked up in the policy PDF, and the
                   exclusions the claim's words fit searched for (read_case builds the Case)
  case_files.py    CASE.json files, for `claims-crew resolve` and the tests' table
"""

from claims_crew.records import AdjudicationCheck
from claims_crew.records.resolution import (
    ClauseCheck,
    FactCheck,
    Resolution,
    SideReview,
    TrailStep,
)
from claims_crew.resolver.adjudication import apply_adjudication
from claims_crew.resolver.case import Case, PolicyView, ReadClause, cited_clauses
from claims_crew.resolver.quotes import CLAUSE_QUOTES, FACT_QUOTES, fold, quote_in
from claims_crew.resolver.rules import policy_checks, resolve

__all__ = [
    "CLAUSE_QUOTES",
    "FACT_QUOTES",
    "AdjudicationCheck",
    "Case",
    "ClauseCheck",
    "FactCheck",
    "PolicyView",
    "ReadClause",
    "Resolution",
    "SideReview",
    "TrailStep",
    "apply_adjudication",
    "cited_clauses",
    "fold",
    "policy_checks",
    "quote_in",
    "resolve",
]

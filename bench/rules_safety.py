"""Benchmark: how safe the resolver's rules are on simulated agent answers, beside S1.

No capable model runs here, so the rules are measured on simulated answers of the policy and
fraud agents. Each simulated claim is written as a CASE.json and decided exactly as
`claims-crew resolve` decides one (resolver/case_files.load_case re-reads every cited clause
from the sample policy PDFs, then resolver.resolve); no adjudicator is asked, so a dispute stays
ADJUDICATION_REQUIRED and counts as left for a person. Beside the rules, S1 (the two-reviewer
script of seed 001) is applied to the same answers: the same answer, confidences at most 0.25
apart and the higher at least 0.85 decide automatically; anything else goes to a person.

Automatic: ACCEPTED or PREFERRED (S1: its agreement). Unsafe: automatic, and either the answer
differs from the truth or the claim is genuinely ambiguous. Every rate is over all claims.

The claims (SCENARIOS) use real clauses and quotes of the three sample policies: a clear claim
has a true answer with a supporting clause, and a wrong reading with a real clause that could
be argued for the other answer; an ambiguous claim has two readings that both hold up. Every
quote is checked against the PDFs before a profile runs.

What an agent does (PROFILES; all rates per agent and claim):
- accuracy: chance of the true answer on a clear claim, `accuracy_unknown` when intake left the
  damage start date unknown (`unknown_facts` of the claims);
- a wrong answer cites, in the shares `wrong_cites`: the wrong reading's real clause (which
  holds up on re-reading), a made-up clause, or the wrong reading's clause misquoted;
- shared errors: with chance `shared` the fraud agent takes the policy agent's answer and
  citation (right or wrong), as agents fed the same misleading claim do; else it draws its own;
- an agent looks its clause up with policy_lookup with chance `tool_share`, else cites it from
  memory, and a clause cited from memory is misquoted with chance `memory_misquote`;
- confidence: uniform in `confidence_right` for a true answer, in `confidence_wrong` for a
  wrong one and for a guess on an ambiguous claim (two decimals);
- ambiguous claims: `ambiguous` of the claims; an agent guesses either reading;
- where the rules allow it, an agent abstains (answers uncertain, with its typed reason) with
  chance `abstain_ambiguous` on an ambiguous claim, `abstain_unknown` when the start date is
  unknown, and `abstain_clear` otherwise; where they do not, it answers as above. The random
  draws are the same either way, so only the abstaining answers differ.
- amounts stay under the large_amount gate, with no red flags and no risk class: the gates,
  which S1 lacks, stay out of the comparison;
- an agent looks up only the clause it cites, never the other exclusions that fit the claim.
  So under the exclusion check, covered agreed, or won alone, is escalated wherever an
  exclusion fits and only the losing side, if any, cited it (the flood, grout, mice, engine,
  camera and rain run-off claims), and a one-sided win over a side that answered not_covered
  is a dispute where one fits. No covered claim's words fit an exclusion.

The rules are measured as found (no prefer floor, no tool-sourced requirement, no abstention,
no exclusion check), each change added in turn, the shipped config/resolution.yaml, and four
alternatives to it: one abstention escalating only when both agents abstain, an agreement
needing a looked-up clause on both sides, no exclusion check, and the exclusion check without
its guard on the prefer rule. Fixed seeds: a run repeats exactly. tests/test_rules_safety.py
holds the shipped rules to S1: never more unsafe decisions, and as many automatic ones wherever
the agents look up the clauses they cite. Where half of them come from memory, the tool-sourced
requirement refuses every agreement nobody looked up, by design, and the rules decide fewer
claims than S1.

    uv run python bench/rules_safety.py
    uv run python bench/rules_safety.py --claims 150 --json
    uv run python bench/rules_safety.py --small     # 200 claims per profile: CI's check
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATE_OF_LOSS = "2025-11-03"
ABSTENTION = "uncertain"
DEFINITE = ("covered", "not_covered")


@dataclass(frozen=True)
class Reading:
    """One answer to a claim and the real clause, with its words, that argues for it."""

    answer: str
    clause: str
    quote: str


@dataclass(frozen=True)
class Scenario:
    """A kind of claim: its truth and the two readings agents may give."""

    name: str
    policy: str
    truth: str  # covered, not_covered or ambiguous
    loss_type: str
    cause: str
    covered: Reading
    not_covered: Reading

    def reading(self, answer: str) -> Reading:
        return self.covered if answer == "covered" else self.not_covered


def _c(clause: str, quote: str) -> Reading:
    return Reading("covered", clause, quote)


def _n(clause: str, quote: str) -> Reading:
    return Reading("not_covered", clause, quote)


HOME, AUTO, TRAVEL = "HM-HOME-001", "MR-AUTO-001", "WF-TRAVEL-001"
SEEPAGE = _n("7.1(a)", "continuous or repeated seepage or leakage of water or steam")
DISCHARGE = _c("4.2(b)", "sudden and accidental discharge of water or steam")
WEAR = _n("7.1(b)", "wear and tear, gradual deterioration, rust, corrosion")
# fmt: off
CLEAR = (
    Scenario("burst pipe", HOME, "covered", "water_damage", "pipe burst in the frost",
             _c("4.2(a)", "a sudden burst of a pipe, tank or cistern"), WEAR),
    Scenario("washing machine hose", HOME, "covered", "water_damage", "hose split mid-cycle",
             DISCHARGE, SEEPAGE),
    Scenario("burglary", HOME, "covered", "theft", "back door forced",
             _c("4.4(a)", "theft or attempted theft involving forcible and violent entry"),
             _n("6.1(c)", "report any theft, attempted theft, malicious damage or vandalism")),
    Scenario("kitchen fire", HOME, "covered", "fire", "pan fire",
             _c("4.1(a)", "fire, including damage caused by smoke from a fire"),
             _n("7.6", "Any deliberate or intentional act by you")),
    Scenario("hail", HOME, "covered", "storm", "hail broke the roof lights",
             _c("4.3(a)", "heavy snowfall or hail"),
             _n("7.4", "Faulty or defective design, materials or workmanship")),
    Scenario("fallen tree", HOME, "covered", "impact", "oak fell in a gale",
             _c("4.5(b)", "falling trees, branches, aerials, satellite dishes or lampposts"),
             WEAR),
    Scenario("river flood", HOME, "not_covered", "flood", "river burst its banks",
             _c("4.3(a)", "torrential rain at a rate of at least 25 mm per hour"),
             _n("7.2", "the rising or overflow of any lake, river, stream or the sea")),
    Scenario("failed grout", HOME, "not_covered", "water_damage", "grout failed in the shower",
             DISCHARGE, _n("7.1(c)", "failure or lack of grout, sealant or caulking")),
    Scenario("mice", HOME, "not_covered", "pests", "mice chewed the wiring",
             _c("4.5(a)", "impact by an aircraft, vehicle, train or animal"),
             _n("7.5", "Insects, vermin, rodents or birds")),
    Scenario("mould", HOME, "not_covered", "mould", "black mould behind the wardrobe",
             DISCHARGE, _n("7.3", "Mould, mildew, wet rot, dry rot or fungus")),
    Scenario("business stock", HOME, "not_covered", "theft", "stock of an online shop taken",
             _c("3.2", "We cover the contents up to the contents sum insured"),
             _n("3.3", "property used for business purposes")),
    Scenario("hail on the car", AUTO, "covered", "storm", "hail dented the bonnet",
             _c("Section II.A.1(d)", "windstorm, hail, water or flood"),
             _n("Section II.B.1(a)", "wear and tear")),
    Scenario("engine failure", AUTO, "not_covered", "breakdown", "engine seized on the motorway",
             _c("Section II.A.1(c)", "explosion or earthquake"),
             _n("Section II.B.1(c)", "mechanical or electrical breakdown or failure")),
    Scenario("emergency dentist", TRAVEL, "covered", "medical", "broken tooth abroad",
             _c("Section 1/what-is-covered/•2", "Emergency dental treatment"),
             _n("Section 1/what-is-not-covered/•2",
                "Any treatment that is not immediately necessary")),
    Scenario("camera left on a bench", TRAVEL, "not_covered", "theft", "camera left unattended",
             _c("Section 3/what-is-covered/•2", "Valuables, meaning jewellery, watches, cameras"),
             _n("Section 3/what-is-not-covered/•2",
                "Loss or theft of valuables or personal money left unattended")),
)
AMBIGUOUS = (
    Scenario("leak of unknown duration", HOME, "ambiguous", "water_damage",
             "joint found leaking under the bath", DISCHARGE, SEEPAGE),
    Scenario("rain run-off", HOME, "ambiguous", "flood", "rain ran off the hill into the hall",
             _c("4.3(a)", "torrential rain at a rate of at least 25 mm per hour"),
             _n("7.2", "surface water run-off")),
    Scenario("guest took jewellery", HOME, "ambiguous", "theft", "a party guest took a ring",
             _c("4.4(b)", "theft or attempted theft by a person lawfully in the home"),
             _n("7.6", "any act that you permit")),
)
# fmt: on
# A clause no sample policy has, and words that are in no clause, per answer.
MADE_UP = {
    "covered": ("12.1", "every claim is approved"),
    "not_covered": ("9.4", "seepage over any period is excluded"),
}
MISQUOTE = {
    "covered": "all damage to the home is covered",
    "not_covered": "any loss of this kind is excluded",
}


@dataclass(frozen=True)
class Profile:
    """How the simulated agents behave; the module docstring defines each field."""

    name: str
    seed: int
    accuracy: float
    accuracy_unknown: float
    shared: float
    wrong_cites: tuple[float, float, float]  # real wrong-side clause, made-up, misquote
    tool_share: float
    memory_misquote: float
    confidence_right: tuple[float, float]
    confidence_wrong: tuple[float, float]
    ambiguous: float = 0.10
    unknown_facts: float = 0.30
    abstain_ambiguous: float = 0.0
    abstain_unknown: float = 0.0
    abstain_clear: float = 0.0


# fmt: off
PROFILES = (
    Profile("90% right, independent errors", seed=1801,
            accuracy=0.90, accuracy_unknown=0.80, shared=0.0, wrong_cites=(0.5, 0.25, 0.25),
            tool_share=0.9, memory_misquote=0.2,
            confidence_right=(0.80, 0.98), confidence_wrong=(0.55, 0.90),
            abstain_ambiguous=0.5, abstain_unknown=0.2, abstain_clear=0.02),
    Profile("80% right, 30% shared errors", seed=1802,
            accuracy=0.80, accuracy_unknown=0.70, shared=0.3, wrong_cites=(0.6, 0.2, 0.2),
            tool_share=0.9, memory_misquote=0.25,
            confidence_right=(0.75, 0.98), confidence_wrong=(0.60, 0.92),
            abstain_ambiguous=0.4, abstain_unknown=0.15, abstain_clear=0.03),
    Profile("65% right, 50% shared, half cited from memory", seed=1803,
            accuracy=0.65, accuracy_unknown=0.55, shared=0.5, wrong_cites=(0.6, 0.2, 0.2),
            tool_share=0.5, memory_misquote=0.3,
            confidence_right=(0.70, 0.97), confidence_wrong=(0.65, 0.95),
            abstain_ambiguous=0.3, abstain_unknown=0.1, abstain_clear=0.03),
    Profile("80% right, 30% shared, never abstains", seed=1804,
            accuracy=0.80, accuracy_unknown=0.70, shared=0.3, wrong_cites=(0.6, 0.2, 0.2),
            tool_share=0.9, memory_misquote=0.25,
            confidence_right=(0.75, 0.98), confidence_wrong=(0.60, 0.92)),
)
# fmt: on


@dataclass(frozen=True)
class Variant:
    """A set of rules: resolution.yaml with some settings changed, and whether agents may
    abstain under it (only when its allowed answers list uncertain)."""

    name: str
    changes: dict[str, Any]
    may_abstain: bool


# The rules before abstention and the exclusion check came.
EARLIER = {"allowed_answers": list(DEFINITE), "exclusions": {"check": False}}
VARIANTS = (
    Variant(
        "as found",
        {**EARLIER, "prefer": {"min_confidence": 0.0}, "tool_sourced": {"required": False}},
        may_abstain=False,
    ),
    Variant("+ prefer floor", {**EARLIER, "tool_sourced": {"required": False}}, False),
    Variant("+ tool-sourced", EARLIER, may_abstain=False),
    Variant("shipped (+ abstention, + exclusion check)", {}, may_abstain=True),
    Variant("  alternative: both must abstain", {"abstention": {"escalate_when": "both"}}, True),
    Variant(
        "  alternative: agreement looked up on both sides",
        {"tool_sourced": {"required": True, "agreement": "both"}},
        True,
    ),
    Variant("  alternative: no exclusion check", {"exclusions": {"check": False}}, True),
    Variant("  alternative: no prefer guard", {"exclusions": {"guard_prefer": False}}, True),
)
SHIPPED = VARIANTS[3]
# Claims per profile: enough that a difference of a point between the rules and S1 is several
# claims, not one.
CLAIMS = 3000
SMALL_CLAIMS = 200


@dataclass(frozen=True)
class Simulated:
    """One simulated claim: its truth, and the case file the rules read."""

    scenario: Scenario
    unknown_start: bool
    case: dict[str, Any]

    @property
    def truth(self) -> str:
        return self.scenario.truth


def _answer(
    rng: random.Random,
    profile: Profile,
    scenario: Scenario,
    unknown: bool,
    may_abstain: bool,
    copy: dict[str, Any] | None,
) -> dict[str, Any]:
    """One agent's plan: what it answers and cites; `copy` is the other agent's, when shared.

    Every draw is made whether or not it is used, so the two answer sets (agents that may
    abstain, agents that may not) differ only in the answers of agents that abstain."""
    u_abstain, u_right, u_pick, u_cite = (rng.random() for _ in range(4))
    if copy is not None:
        return dict(copy)
    ambiguous = scenario.truth == "ambiguous"
    chance = (
        profile.abstain_ambiguous
        if ambiguous
        else profile.abstain_unknown
        if unknown
        else profile.abstain_clear
    )
    if may_abstain and u_abstain < chance:
        reason = "interpretation_unresolved" if ambiguous or not unknown else "needs_more_evidence"
        return {"answer": ABSTENTION, "reason": reason}
    if ambiguous:
        return {"answer": DEFINITE[u_pick < 0.5], "cite": "real", "right": None}
    accuracy = profile.accuracy_unknown if unknown else profile.accuracy
    if u_right < accuracy:
        return {"answer": scenario.truth, "cite": "real", "right": True}
    real, made_up, _ = profile.wrong_cites
    cite = "real" if u_cite < real else "made_up" if u_cite < real + made_up else "misquote"
    wrong = DEFINITE[scenario.truth == "covered"]
    return {"answer": wrong, "cite": cite, "right": False}


def _claim(
    rng: random.Random, profile: Profile, scenario: Scenario, side: str, plan: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The agent's answer as a case file holds it, and its tool ledger."""
    u_tool, u_memory, u_confidence = rng.random(), rng.random(), rng.random()
    looked_up = u_tool < profile.tool_share
    if plan["answer"] == ABSTENTION:
        answer = {"answer": ABSTENTION, "confidence": 0.5, "abstain_reason": plan["reason"],
                  "evidence": [], "facts_relied_on": ["damage_start_date"]}  # fmt: skip
        return answer, []
    reading = scenario.reading(plan["answer"])
    clause, quote = reading.clause, reading.quote
    if plan["cite"] == "made_up":
        clause, quote = MADE_UP[plan["answer"]]
    elif plan["cite"] == "misquote" or (not looked_up and u_memory < profile.memory_misquote):
        quote = MISQUOTE[plan["answer"]]
    low, high = profile.confidence_right if plan["right"] else profile.confidence_wrong
    answer = {
        "answer": plan["answer"],
        "confidence": round(low + (high - low) * u_confidence, 2),
        "evidence": [{"clause_id": clause, "quote": quote}],
        "facts_relied_on": ["cause", "damage_start_date"],
    }
    ledger = []
    if looked_up:
        # A made-up clause is a lookup miss: the tool ran and returned no clause.
        returned = [] if plan["cite"] == "made_up" else [clause]
        ledger.append({"agent": side, "tool": "policy_lookup",
                       "args": {"policy_id": scenario.policy, "clause_id": clause},
                       "returned": returned})  # fmt: skip
    return answer, ledger


def simulate(profile: Profile, claims: int, may_abstain: bool) -> list[Simulated]:
    rng = random.Random(profile.seed)
    out = []
    for i in range(claims):
        ambiguous = rng.random() < profile.ambiguous
        unknown = rng.random() < profile.unknown_facts
        pool = AMBIGUOUS if ambiguous else CLEAR
        scenario = pool[rng.randrange(len(pool))]
        amount = rng.randrange(500, 20_000, 50)
        shared = rng.random() < profile.shared
        policy_plan = _answer(rng, profile, scenario, unknown, may_abstain, None)
        fraud_plan = _answer(
            rng, profile, scenario, unknown, may_abstain, policy_plan if shared else None
        )
        policy, policy_ledger = _claim(rng, profile, scenario, "policy", policy_plan)
        fraud, fraud_ledger = _claim(rng, profile, scenario, "fraud", fraud_plan)
        claim_id = f"S{profile.seed}-{i:04d}"
        case = {
            "policy": scenario.policy,
            "claim_file": {
                "claim_id": claim_id, "policy_id": scenario.policy, "claimant": "Simulated",
                "date_reported": DATE_OF_LOSS, "date_of_loss": DATE_OF_LOSS,
                "description": f"{scenario.name}: {scenario.cause}", "amount": amount,
                "currency": "GBP",
            },
            "facts": {
                "loss_type": scenario.loss_type, "cause": scenario.cause,
                "date_of_loss": DATE_OF_LOSS,
                "damage_start_date": None if unknown else DATE_OF_LOSS, "amount_claimed": amount,
            },
            "claims": {"policy": policy, "fraud": fraud},
            "ledger": policy_ledger + fraud_ledger,
        }  # fmt: skip
        out.append(Simulated(scenario, unknown, case))
    return out


def s1(case: dict[str, Any]) -> str | None:
    """Seed 001's two-reviewer script: the agreed answer, or None for a person."""
    policy, fraud = case["claims"]["policy"], case["claims"]["fraud"]
    if policy["answer"] != fraud["answer"] or policy["answer"] == ABSTENTION:
        return None
    high = max(policy["confidence"], fraud["confidence"])
    if abs(policy["confidence"] - fraud["confidence"]) > 0.25 or high < 0.85:
        return None
    return str(policy["answer"])


@dataclass
class Tally:
    """Automatic and unsafe decisions over one profile's claims, and where the unsafe came from."""

    claims: int = 0
    automatic: int = 0
    unsafe: int = 0
    sources: Counter[str] = field(default_factory=Counter)

    def add(self, decided: str | None, source: str, truth: str) -> None:
        self.claims += 1
        if decided is None:
            return
        self.automatic += 1
        if truth == "ambiguous" or decided != truth:
            self.unsafe += 1
            self.sources[f"{source} {'ambiguous' if truth == 'ambiguous' else 'wrong'}"] += 1

    def rate(self, count: int) -> float:
        return count / self.claims if self.claims else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "claims": self.claims,
            "automatic": self.automatic,
            "unsafe": self.unsafe,
            "automatic_rate": round(self.rate(self.automatic), 4),
            "unsafe_rate": round(self.rate(self.unsafe), 4),
            "unsafe_from": dict(sorted(self.sources.items())),
        }


@dataclass
class Measured:
    profile: Profile
    variant: Variant
    rules: Tally
    s1: Tally


def measure(
    profiles: Sequence[Profile],
    variants: Sequence[Variant],
    claims: int,
    library: Any,
    workdir: Path,
) -> list[Measured]:
    """Every profile under every variant; the rules decide through CASE.json files."""
    from claims_crew.resolver import resolve
    from claims_crew.resolver.case_files import load_case
    from claims_crew.resolver.config import load_config, parse_config

    base = load_config(ROOT / "config").model_dump(by_alias=True)
    check_scenarios(library)
    out = []
    for profile in profiles:
        written: dict[bool, list[tuple[Simulated, Path]]] = {}
        for may_abstain in sorted({v.may_abstain for v in variants}):
            folder = workdir / f"{profile.seed}-{'abstain' if may_abstain else 'answer'}"
            folder.mkdir(parents=True, exist_ok=True)
            written[may_abstain] = []
            for sim in simulate(profile, claims, may_abstain):
                path = folder / f"{sim.case['claim_file']['claim_id']}.json"
                path.write_text(json.dumps(sim.case), encoding="utf-8")
                written[may_abstain].append((sim, path))
        for variant in variants:
            config = parse_config({**base, **variant.changes}, variant.name)
            rules, script = Tally(), Tally()
            for sim, path in written[variant.may_abstain]:
                resolution = resolve(load_case(path, library, config), config)
                decided = (
                    resolution.answer if resolution.outcome in ("ACCEPTED", "PREFERRED") else None
                )
                rules.add(decided, resolution.outcome, sim.truth)
                script.add(s1(sim.case), "agreement", sim.truth)
            out.append(Measured(profile, variant, rules, script))
    return out


def check_scenarios(library: Any) -> None:
    """Every reading's clause exists in its policy, is quoted truly and is of a kind that
    supports its answer; every made-up clause is missing and every misquote fails."""
    from claims_crew.resolver.config import load_config
    from claims_crew.resolver.quotes import CLAUSE_QUOTES, quote_in
    from claims_crew.resolver.reread import policy_view

    kinds = load_config(ROOT / "config").evidence_kinds
    for scenario in CLEAR + AMBIGUOUS:
        for reading in (scenario.covered, scenario.not_covered):
            made_up, _ = MADE_UP[reading.answer]
            view = policy_view(library, scenario.policy, [reading.clause, made_up])
            clause = view.clauses[reading.clause]
            assert clause is not None, f"{scenario.name}: no {reading.clause}"
            assert quote_in(reading.quote, clause.passage), f"{scenario.name}: {reading.quote}"
            assert clause.kind in kinds[reading.answer], f"{scenario.name}: {clause.kind}"
            assert not quote_in(MISQUOTE[reading.answer], CLAUSE_QUOTES.read(clause.text))
            assert view.clauses[made_up] is None, f"{scenario.policy} has {made_up}"


def pct(tally: Tally, count: int) -> str:
    return f"{100 * tally.rate(count):.1f}%"


def show(results: Sequence[Measured], claims: int) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for profile in dict.fromkeys(r.profile for r in results):
        rows = [r for r in results if r.profile == profile]
        table = Table(
            title=f"{profile.name} (seed {profile.seed}, {claims} claims)", title_justify="left"
        )
        for column in ("rules", "abstain", "automatic", "unsafe", "unsafe from",
                       "S1 automatic", "S1 unsafe"):  # fmt: skip
            table.add_column(
                column, justify="left" if column in ("rules", "unsafe from") else "right"
            )
        for r in rows:
            table.add_row(
                r.variant.name,
                "yes" if r.variant.may_abstain else "no",
                pct(r.rules, r.rules.automatic),
                pct(r.rules, r.rules.unsafe),
                ", ".join(f"{k} {n}" for k, n in sorted(r.rules.sources.items())) or "-",
                pct(r.s1, r.s1.automatic),
                pct(r.s1, r.s1.unsafe),
            )
        console.print(table)
    summary = Table(
        title="before (rules as found) and after (shipped), against S1", title_justify="left"
    )
    for column in ("agents", "as found", "S1", "shipped", "S1, agents may abstain", "dominates"):
        summary.add_column(column, justify="left" if column == "agents" else "right")
    for profile in dict.fromkeys(r.profile for r in results):
        found = next(
            (r for r in results if r.profile == profile and r.variant == VARIANTS[0]), None
        )
        shipped = next((r for r in results if r.profile == profile and r.variant == SHIPPED), None)

        def pair(tally: Tally | None) -> str:
            if tally is None:
                return "-"
            return f"{pct(tally, tally.automatic)} / {pct(tally, tally.unsafe)}"

        summary.add_row(
            profile.name,
            pair(found.rules if found else None),
            pair(found.s1 if found else None),
            pair(shipped.rules if shipped else None),
            pair(shipped.s1 if shipped else None),
            ("yes" if dominates(shipped) else "NO") if shipped else "-",
        )
    console.print(summary)
    console.print("each cell: automatic / unsafe, over all claims")


def dominates(r: Measured) -> bool:
    """At least as many claims decided automatically as S1, and no more of them unsafe."""
    return r.rules.automatic >= r.s1.automatic and r.rules.unsafe <= r.s1.unsafe


def run(claims: int = CLAIMS, variants: Sequence[Variant] = VARIANTS) -> list[Measured]:
    """Every profile under the variants, in a private data folder."""
    from claims_crew.policy.library import PolicyLibrary

    with tempfile.TemporaryDirectory() as tmp:
        library = PolicyLibrary(ROOT / "policies", Path(tmp) / "cache")
        return measure(PROFILES, variants, claims, library, Path(tmp) / "cases")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=CLAIMS, help="simulated claims per profile")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--small", action="store_true", help=f"{SMALL_CLAIMS} claims per profile (CI's run)"
    )
    args = parser.parse_args(argv)
    if args.small:
        args.claims = SMALL_CLAIMS
    results = run(args.claims)
    if args.json:
        payload = [
            {"profile": r.profile.name, "seed": r.profile.seed, "rules": r.variant.name,
             "may_abstain": r.variant.may_abstain, "result": r.rules.as_json(),
             "s1": r.s1.as_json()}
            for r in results
        ]  # fmt: skip
        print(json.dumps(payload, indent=2))
        return
    show(results, args.claims)


if __name__ == "__main__":
    main()

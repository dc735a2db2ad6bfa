"""Benchmark: what the resolver's rules cost per case, beside one scripted crew run.

It generates N cases (default 10,000) against the sample home policy, mixing every path
through the rules: agreement, a fabricated clause, a misquote, a wrong clause kind, a clause
cited from memory, unknown and unverified facts, abstentions, interpretation disputes, gates and
parse errors. Intake's facts name where the claim states them, and clause ids and quotes are
drawn from the policy's real clauses and returned by policy_lookup to the side citing them, so
most facts and citations verify; each fault is drawn alone with a small chance. The clauses
are re-read from the PDF's index, and the exclusions the claim's words fit searched for, once
per case before timing starts (that is reread.read_case, the resolver's only I/O, timed
separately); then each case is resolved alone and timed, and it prints:

1. the median and p99 microseconds per resolve() call (goal: median under 200 µs);
2. the median microseconds of the re-read and exclusion search per case;
3. the median wall time of one crew run on one claim with a scripted model (no latency), and
   the ratio crew run / resolver median, both taken in this run;
4. each outcome's and each deciding rule's share of the cases. It exits non-zero when an
   outcome is over 60% of them, or an outcome or rule that resolve() can reach decided none:
   the cases would then time too few paths.

Run it from the project root:

    uv run python bench/resolver.py
    uv run python bench/resolver.py --cases 2000
    uv run python bench/resolver.py --small      # 2,000 cases, one crew run: CI's check
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from claims_crew.vocabulary import OUTCOMES, RULES

ROOT = Path(__file__).resolve().parent.parent


MAX_SHARE = 0.6
# What resolve() alone never returns: the adjudicator's outcome and rule come from
# apply_adjudication, the re-read and the gates only add to the trail of the rule that decides.
NOT_BY_RESOLVE = frozenset({"ADJUDICATED", "adjudicator", "reread", "gates"})
SMALL_CASES = 2_000


# The generated claim states every fact intake extracts, so a fact sourced to it verifies.
DESCRIPTION = (
    "Water came through the kitchen ceiling from the bathroom above. A plumber found a leaking "
    "joint on the pipe under the bath. The leak began on the morning of 3 November 2025."
)
SOURCES = {
    "loss_type": {"where": "description", "quote": "Water came through the kitchen ceiling"},
    "cause": {"where": "description", "quote": "a leaking joint on the pipe under the bath"},
    "date_of_loss": {"where": "date_of_loss"},
    "damage_start_date": {
        "where": "description",
        "quote": "The leak began on the morning of 3 November 2025.",
    },
    "amount_claimed": {"where": "amount"},
}
# Not in the claim's words: a fact sourced to it is unverified, so the rules treat it as unknown.
UNSOURCED_START = {"where": "description", "quote": "The leak began in September 2025."}


def clause_quotes(doc: Any) -> dict[str, tuple[str, str]]:
    """Each clause's kind and a quote of it (six of its words), by clause id."""
    return {c.id: (c.kind, " ".join(c.text.split()[2:8])) for c in doc.clauses if c.text.split()}


def generate(count: int, clauses: dict[str, tuple[str, str]], seed: int = 7) -> list[Any]:
    """Case inputs: (claim_file, facts, policy claim, fraud claim, ledger), as pydantic models.

    Most cases are sound (facts sourced to the claim's words, real clauses quoted truly and
    returned by policy_lookup to the side citing them), and each kind of fault is drawn on its
    own with a small chance, so that every rule decides its share of the cases."""
    from claims_crew.models import IntakeFacts, ParseFailure

    rng = random.Random(seed)
    cases = []
    for i in range(count):
        claim_file = _claim_file(rng, i)
        facts: Any = _facts(rng, float(claim_file.amount))
        if rng.random() < 0.02:
            facts = ParseFailure(reason="not a JSON object", raw="the facts are as stated")
        else:
            facts = IntakeFacts.model_validate(facts)
        policy_answer = rng.choice(["covered", "covered", "not_covered"])
        agree = rng.random() < 0.6
        fraud_answer = policy_answer if agree else _other(policy_answer)
        policy, policy_ledger = _side(rng, "policy", policy_answer, clauses)
        fraud, fraud_ledger = _side(rng, "fraud", fraud_answer, clauses)
        cases.append((claim_file, facts, policy, fraud, [*policy_ledger, *fraud_ledger]))
    return cases


def _claim_file(rng: random.Random, i: int) -> Any:
    from claims_crew.models import ClaimFile

    return ClaimFile(
        claim_id=f"B-{i:05d}",
        policy_id="HM-HOME-001",
        claimant="Bench",
        date_reported="2025-11-04",
        date_of_loss="2024-06-01" if rng.random() < 0.03 else "2025-11-03",  # out of force
        description=DESCRIPTION,
        amount=40_000 if rng.random() < 0.04 else rng.choice([800, 4200, 12_000]),
        currency="GBP",
        risk_class="high" if rng.random() < 0.03 else rng.choice([None, "low"]),
    )


def _facts(rng: random.Random, amount: float) -> dict[str, Any]:
    """Intake's facts, each sourced to the claim; now and then the start date is left unknown or
    sourced to words the claim does not hold."""
    facts: dict[str, Any] = {
        "loss_type": "water_damage",
        "cause": "leaking joint on the pipe under the bath",
        "date_of_loss": "2025-11-03",
        "damage_start_date": "2025-11-03",
        "amount_claimed": amount,
        "sources": dict(SOURCES),
    }
    draw = rng.random()
    if draw < 0.12:
        facts.update(damage_start_date=None, unknowns=["damage_start_date"])
        del facts["sources"]["damage_start_date"]
    elif draw < 0.18:
        facts.update(damage_start_date="2025-09-01")
        facts["sources"]["damage_start_date"] = UNSOURCED_START
    return facts


def _other(answer: str) -> str:
    return "not_covered" if answer == "covered" else "covered"


def _side(
    rng: random.Random, side: str, answer: str, clauses: dict[str, tuple[str, str]]
) -> tuple[Any, list[Any]]:
    """One agent's answer and the policy_lookup calls of its task. Faults, each drawn alone: an
    unreadable answer, an abstention, a made-up clause, a misquote, a clause of the wrong kind, no
    evidence, a clause cited from memory, low confidence, red flags."""
    from claims_crew.models import Claim, Evidence, LedgerEntry, ParseFailure

    if rng.random() < 0.02:
        return ParseFailure(reason="not a JSON object", raw=f"I'd say {answer}"), []
    kinds = {"covered": ("grant",), "not_covered": ("exclusion", "condition", "limit")}
    wanted = _pool(clauses, kinds[answer])
    wrong = _pool(clauses, kinds[_other(answer)])
    abstain = rng.random() < 0.04
    cited = rng.choice(wanted)
    quote = clauses[cited][1]
    fault = rng.random()
    if fault < 0.05:
        cited, quote = "9.9", "words of a clause the policy does not have"
    elif fault < 0.10:
        quote = "words that are not in the clause"
    elif fault < 0.14 and not abstain:
        cited = rng.choice(wrong)
        quote = clauses[cited][1]
    evidence = [] if fault > 0.97 else [Evidence(clause_id=cited, quote=quote)]
    claim = Claim(
        answer="uncertain" if abstain else answer,
        abstain_reason="interpretation_unresolved" if abstain else None,
        confidence=round(
            rng.uniform(0.5, 0.84) if rng.random() < 0.12 else rng.uniform(0.86, 1.0), 2
        ),
        evidence=evidence,
        facts_relied_on=rng.choice([["cause"], ["damage_start_date", "cause"]]),
        red_flags=["inconsistent dates", "altered invoice"] if rng.random() < 0.03 else [],
    )
    looked_up = rng.random() >= 0.08  # else every clause is cited from memory
    ledger = [
        LedgerEntry(
            task_id=f"t-{side}",
            task_name=f"{side}_task",
            agent_role=side,
            tool="policy_lookup",
            args={"policy_id": "HM-HOME-001", "clause_id": e.clause_id},
            returned_clause_ids=[e.clause_id],
        )
        for e in evidence
        if looked_up
    ]
    return claim, ledger


def _pool(clauses: dict[str, tuple[str, str]], kinds: tuple[str, ...]) -> list[str]:
    return sorted(cid for cid, (kind, _) in clauses.items() if kind in kinds)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def crew_run_seconds(library: Any, workdir: Path, runs: int) -> float:
    """Median wall time of one scripted crew run on the water claim (no model latency)."""
    from claims_crew.claim_files import load_claim
    from claims_crew.llms.scripted import ScriptedLLM, final, lookup
    from claims_crew.run.context import build_context
    from claims_crew.run.crew_review import review_claim
    from claims_crew.store import Store

    facts = {"loss_type": "water_damage", "cause": "leak", "date_of_loss": "2025-11-03",
             "damage_start_date": None, "amount_claimed": 4200}  # fmt: skip
    quote = {"clause_id": "4.2(b)", "quote": "sudden and accidental discharge"}
    answer = {"answer": "covered", "confidence": 0.8, "facts_relied_on": ["cause"],
              "evidence": [quote]}  # fmt: skip
    times = []
    for _ in range(runs):
        llms = {
            "intake": ScriptedLLM([final(facts)]),
            "policy": ScriptedLLM([lookup("HM-HOME-001", "4.2(b)"), final(answer)]),
            "fraud": ScriptedLLM([lookup("HM-HOME-001", "4.2(b)"), final(answer)]),
        }
        settings = build_context(
            library=library,
            llm_for=lambda name, llms=llms: llms.setdefault(name, ScriptedLLM()),
            store=Store(workdir / "claims.sqlite"),
            config_dir=ROOT / "config",
        )
        started = time.perf_counter()
        record = review_claim(load_claim(ROOT / "claims" / "inbox" / "C-1042.json"), settings)
        times.append(time.perf_counter() - started)
        assert record.status == "reviewed", record.error
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--crew-runs", type=int, default=5)
    parser.add_argument(
        "--small", action="store_true", help=f"{SMALL_CASES:,} cases and one crew run (CI's run)"
    )
    args = parser.parse_args(argv)
    if args.small:
        args.cases, args.crew_runs = SMALL_CASES, 1
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(
            CLAIMS_CREW_HOME=tmp,
            CREWAI_STORAGE_DIR=str(Path(tmp) / "crewai"),
            CREWAI_DISABLE_TELEMETRY="true",
            OTEL_SDK_DISABLED="true",
        )
        bench(args.cases, args.crew_runs, Path(tmp))


def bench(count: int, crew_runs: int, workdir: Path) -> None:
    import logging

    from rich.console import Console
    from rich.table import Table

    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.resolver import resolve
    from claims_crew.resolver.config import load_config
    from claims_crew.resolver.reread import read_case

    logging.getLogger("crewai").setLevel(logging.ERROR)
    console = Console()
    rules = load_config(ROOT / "config")
    library = PolicyLibrary(ROOT / "policies", workdir / "cache")
    doc = library.open("HM-HOME-001")
    clauses = clause_quotes(doc)
    inputs = generate(count, clauses)
    reread_us, cases = [], []
    for claim_file, facts, policy, fraud, ledger in inputs:
        started = time.perf_counter()
        case = read_case(library, rules, claim_file, facts, (policy, fraud), ledger)
        reread_us.append((time.perf_counter() - started) * 1e6)
        cases.append(case)

    resolve(cases[0], rules)  # warm: the config's digest is computed once
    resolve_us, outcomes, decided_by, gated = [], Counter[str](), Counter[str](), 0
    for case in cases:
        started = time.perf_counter()
        resolution = resolve(case, rules)
        resolve_us.append((time.perf_counter() - started) * 1e6)
        outcomes[resolution.outcome] += 1
        decided_by[resolution.rule] += 1
        gated += bool({"policy_gate", "not_tool_sourced"} & set(resolution.reason_codes))

    crew_s = crew_run_seconds(library, workdir, crew_runs)
    median = statistics.median(resolve_us)

    table = Table(title=f"resolver over {count:,} generated cases (sample home policy)")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("goal")
    table.add_row(
        "resolve() median µs/case", f"{median:.1f}", "< 200 " + ("OK" if median < 200 else "MISS")
    )
    table.add_row("resolve() p99 µs/case", f"{percentile(resolve_us, 0.99):.1f}", "")
    table.add_row(
        "re-read + exclusion search median µs/case", f"{statistics.median(reread_us):.1f}", ""
    )
    table.add_row(f"scripted crew run, median of {crew_runs} (ms)", f"{crew_s * 1e3:.1f}", "")
    table.add_row("crew run / resolve() median", f"{crew_s * 1e6 / median:,.0f}×", "")
    console.print(table)
    console.print(shares("outcome", outcomes, OUTCOMES, count))
    console.print(shares("rule", decided_by, RULES, count))
    console.print(f"held back by the gates or by provenance: {gated:,} ({gated / count:.1%})")
    problems = mix_problems(outcomes, decided_by, count)
    for problem in problems:
        console.print(f"MIX: {problem}")
    if problems:
        raise SystemExit("the generated cases no longer spread over the rules")


def shares(title: str, counts: Counter[str], names: Sequence[str], count: int) -> Any:
    """A table of each name's count and share of the cases, in the vocabulary's order."""
    from rich.table import Table

    table = Table(title=f"{title} shares")
    table.add_column(title)
    table.add_column("cases", justify="right")
    table.add_column("share", justify="right")
    for name in names:
        table.add_row(name, f"{counts[name]:,}", f"{counts[name] / count:.1%}")
    return table


def mix_problems(outcomes: Counter[str], decided_by: Counter[str], count: int) -> list[str]:
    """Why the cases time too few paths: an outcome over MAX_SHARE, or an outcome or a deciding
    rule that resolve() can reach and no case reached."""
    problems = [
        f"{name} is {n / count:.1%} of the cases (at most {MAX_SHARE:.0%})"
        for name, n in outcomes.items()
        if n / count > MAX_SHARE
    ]
    problems += [
        f"no case is {name}"
        for name in OUTCOMES
        if name not in NOT_BY_RESOLVE and not outcomes[name]
    ]
    problems += [
        f"rule {name} decided no case"
        for name in RULES
        if name not in NOT_BY_RESOLVE and not decided_by[name]
    ]
    return problems


if __name__ == "__main__":
    main()

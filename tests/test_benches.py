"""The benches cannot rot unseen: each has a small size that CI runs (bench/small.sh), and the
cases bench/resolver.py and bench/report.py generate still take the paths they are meant to."""

from __future__ import annotations

from collections import Counter

from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver import resolve
from claims_crew.resolver.config import load_config
from claims_crew.resolver.reread import read_case
from tests.support.paths import ROOT
from tests.support.scripts import load_script

BENCH = ROOT / "bench"


def test_every_bench_has_a_small_size() -> None:
    benches = sorted(BENCH.glob("*.py"))
    assert len(benches) >= 13
    assert [b.name for b in benches if '"--small"' not in b.read_text(encoding="utf-8")] == []


def test_ci_runs_every_bench_at_its_small_size() -> None:
    small = (BENCH / "small.sh").read_text(encoding="utf-8")
    assert "for bench in bench/*.py; do" in small and '"$bench" --small' in small
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # Beside the tests, after type-checking: started before them, waited for once they end, and
    # failing the run when either fails.
    mypy, benches = ci.index("nice -n 10 uv run mypy"), ci.index("nice -n 10 bench/small.sh")
    assert mypy < benches < ci.index("uv run pytest") < ci.index('wait "$beside_pid"')
    assert 'if [ "$beside_status" -ne 0 ]; then' in ci and "status=1" in ci


def test_resolver_bench_cases_spread_over_every_rule(sample_library: PolicyLibrary) -> None:
    bench = load_script(BENCH / "resolver.py")
    config = load_config(ROOT / "config")
    clauses = bench.clause_quotes(sample_library.open("HM-HOME-001"))
    outcomes, rules = Counter[str](), Counter[str]()
    count = 800
    for claim_file, facts, policy, fraud, ledger in bench.generate(count, clauses):
        case = read_case(sample_library, config, claim_file, facts, (policy, fraud), ledger)
        resolution = resolve(case, config)
        outcomes[resolution.outcome] += 1
        rules[resolution.rule] += 1
    assert bench.mix_problems(outcomes, rules, count) == []
    assert max(outcomes.values()) <= bench.MAX_SHARE * count


def test_report_bench_claims_reach_their_outcomes() -> None:
    bench = load_script(BENCH / "report.py")
    made = bench.templates()  # raises when a kind of claim no longer reaches its outcome
    outcomes = {record.resolution.outcome for _, record, _ in made}
    assert outcomes == {
        "ACCEPTED",
        "PREFERRED",
        "ADJUDICATED",
        "ADJUDICATION_REQUIRED",
        "ESCALATED",
    }

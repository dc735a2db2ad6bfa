"""The rules against S1 on bench/rules_safety.py's fixed-seed profiles.

The shipped rules (prefer floor, tool-sourced requirement, abstention) must never decide more
claims unsafely than S1, the seed's two-reviewer thresholds applied to the same answers; and
where the agents look their clauses up, as the task prompts tell them to, they must decide at
least as many claims automatically. Where half the clauses are cited from memory, the
tool-sourced requirement refuses every agreement that no agent looked up, by design, so there
only the safety half is held (the bench prints the shortfall).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from claims_crew.policy.library import PolicyLibrary
from tests.support.paths import ROOT
from tests.support.scripts import load_script

# Agents that look up at least this share of the clauses they cite are held to the whole
# dominance; below it the tool-sourced requirement costs coverage by design.
LOOKS_CLAUSES_UP = 0.9


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script(ROOT / "bench" / "rules_safety.py")


@pytest.fixture(scope="module")
def measured(
    bench: ModuleType, sample_library: PolicyLibrary, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """Every profile under the shipped rules, and the first under the rules as they were."""
    workdir = tmp_path_factory.mktemp("rules-safety")
    shipped = bench.measure(bench.PROFILES, [bench.SHIPPED], bench.CLAIMS, sample_library, workdir)
    found = bench.measure(
        bench.PROFILES[:1], [bench.VARIANTS[0]], bench.CLAIMS, sample_library, workdir / "found"
    )
    return {r.profile.name: r for r in shipped} | {"as found": found[0]}


def test_the_shipped_rules_are_the_shipped_config(bench: ModuleType) -> None:
    assert bench.SHIPPED.changes == {} and bench.SHIPPED.may_abstain


@pytest.mark.slow
@pytest.mark.parametrize("index", range(4))
def test_shipped_rules_dominate_s1(bench: ModuleType, measured: dict[str, Any], index: int) -> None:
    profile = bench.PROFILES[index]
    result = measured[profile.name]
    rules, script = result.rules, result.s1
    assert rules.claims == script.claims == bench.CLAIMS
    assert rules.unsafe <= script.unsafe, (profile.name, rules.as_json(), script.as_json())
    if profile.tool_share >= LOOKS_CLAUSES_UP:
        assert rules.automatic >= script.automatic, (profile.name, rules.as_json())
    else:
        # Half the clauses from memory: a quarter of agreements have no looked-up clause.
        assert profile.tool_share <= 0.5
    # An unsafe decision is always one of the automatic outcomes the rules can reach.
    assert {k.split()[0] for k in rules.sources} <= {"ACCEPTED", "PREFERRED"}


@pytest.mark.slow
def test_the_rules_as_found_did_not_dominate(bench: ModuleType, measured: dict[str, Any]) -> None:
    """What the floor, provenance and abstention fixed: one side preferred at any confidence
    decided more claims unsafely than S1, even when the agents are right nine times in ten."""
    found = measured["as found"]
    assert found.rules.unsafe > found.s1.unsafe
    assert any(k.startswith("PREFERRED") for k in found.rules.sources)


def test_the_bench_repeats_exactly(bench: ModuleType) -> None:
    profile = bench.PROFILES[1]
    first = [json.dumps(s.case, sort_keys=True) for s in bench.simulate(profile, 50, True)]
    again = [json.dumps(s.case, sort_keys=True) for s in bench.simulate(profile, 50, True)]
    assert first == again
    # The draws do not depend on whether agents may abstain: only abstaining answers differ.
    answering = bench.simulate(profile, 50, False)
    for with_abstention, without in zip(bench.simulate(profile, 50, True), answering, strict=True):
        for side in ("policy", "fraud"):
            if with_abstention.case["claims"][side]["answer"] != "uncertain":
                assert with_abstention.case["claims"][side] == without.case["claims"][side]


def test_the_scenarios_cite_real_clauses(bench: ModuleType, sample_library: PolicyLibrary) -> None:
    bench.check_scenarios(sample_library)  # raises if a quote no longer re-reads as verified
    assert {s.policy for s in bench.CLEAR} == {"HM-HOME-001", "MR-AUTO-001", "WF-TRAVEL-001"}


def test_bench_main_prints_the_table(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--claims", "20", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(bench.PROFILES) * len(bench.VARIANTS)
    assert {"automatic_rate", "unsafe_rate", "unsafe_from"} <= set(rows[0]["result"])

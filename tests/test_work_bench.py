"""bench/workers.py's arithmetic: claims per hour, the ideal wall time in waves of claims, the
floor the machine's cores set, and the goal's verdict."""

from __future__ import annotations

import math

import pytest

from tests.support.paths import ROOT
from tests.support.scripts import load_script

bench = load_script(ROOT / "bench" / "workers.py")


def test_claims_per_hour_and_the_ideal_in_waves_of_the_claims_in_flight() -> None:
    assert bench.claims_per_hour(64, 16.0) == 14_400
    assert bench.claims_per_hour(64, 0.0) == math.inf
    # 64 claims, 8 at a time, each 4 calls of 0.5 s one after another: 8 waves of 2 s.
    assert bench.ideal_wall(64, 8, 0.5) == 16.0
    assert bench.ideal_wall(64, 32, 0.5) == 4.0
    assert bench.ideal_wall(65, 32, 0.5) == 6.0  # a last, partial wave takes a whole one


@pytest.mark.parametrize(
    ("ratio", "said"), [(3.5, "ok"), (3.9, "ok"), (3.49, "MISS"), (1.0, "MISS")]
)
def test_the_verdict_is_against_the_goal(ratio: float, said: str) -> None:
    assert bench.verdict(ratio) == said


def test_the_cpu_floor_is_the_claims_cpu_spread_over_the_cores() -> None:
    assert bench.cpu_floor(64, 0.4, 2) == pytest.approx(12.8)
    assert bench.cpu_floor(64, 0.4, 16) == pytest.approx(1.6)

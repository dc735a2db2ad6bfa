"""The shipped sample PDFs are exactly what their text sources build, and they parse as meant."""

from __future__ import annotations

import subprocess
import sys

from claims_crew.policy.document import PolicyDocument
from tests.support.paths import ROOT


def test_sample_pdfs_are_up_to_date_with_their_sources() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_policies.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_home_policy_holds_the_design_example(home_policy: PolicyDocument) -> None:
    grant = home_policy.get("4.2(b)")
    exclusion = home_policy.get("7.1")
    assert grant is not None and grant.kind == "grant"
    assert exclusion is not None and exclusion.kind == "exclusion"
    flat = " ".join(home_policy.full_text("7.1").split())
    assert (
        "continuous or repeated seepage or leakage of water or steam over a period of weeks" in flat
    )

"""`crewai run` → run_crew → main.run(): the policy stage indexes every policy or exits non-zero."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from claims_crew.main import run
from tests.conftest import SAMPLE_POLICIES


def test_run_indexes_every_sample_policy(capsys: pytest.CaptureFixture[str]) -> None:
    run()
    out = capsys.readouterr().out
    for policy_id in ("HM-HOME-001", "MR-AUTO-001", "WF-TRAVEL-001"):
        assert policy_id in out
    assert "not built yet" in " ".join(out.split())


def test_run_exits_non_zero_when_a_policy_cannot_be_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "policies"
    shutil.copytree(SAMPLE_POLICIES, root, ignore=shutil.ignore_patterns("src"))
    (root / "meridian_auto.pdf").write_bytes(b"%PDF-1.7\ntruncated")
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(root))
    with pytest.raises(SystemExit) as stop:
        run()
    assert stop.value.code == 1
    assert "malformed" in capsys.readouterr().out

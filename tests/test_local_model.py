"""The real local model (llama.cpp, SmolLM2-135M) end to end on one sample claim.

Its judgement is not under test, only that every output is readable: the grammar keeps even a
tiny model inside the ReAct format and the task's JSON schema.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.errors import ConfigError
from claims_crew.llms.local import LocalLLM
from claims_crew.llms.select import default_llm_factory
from claims_crew.models import Claim, IntakeFacts
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from claims_crew.run.settings import build_settings
from tests.support.paths import ROOT


def test_local_model_reviews_a_claim_with_schema_valid_outputs(
    sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MODEL", raising=False)
    settings = build_settings(
        library=sample_library,
        llm_for=default_llm_factory(),
        config_dir=ROOT / "config",
    )
    record = review_claim(load_claim(ROOT / "claims" / "inbox" / "C-1043.json"), settings)
    assert record.status == "reviewed", record.error
    assert isinstance(record.intake, IntakeFacts), record.raw["intake_task"]
    assert isinstance(record.policy, Claim), record.raw["policy_task"]
    assert isinstance(record.fraud, Claim), record.raw["fraud_task"]
    for answer in (record.policy, record.fraud):
        # The grammar pairs uncertain with a typed reason and any other answer with none.
        assert answer.answer in ("covered", "not_covered", "uncertain")
        assert (answer.answer == "uncertain") == (answer.abstain_reason is not None)
    assert record.resolution is not None
    assert "parse_error" not in record.resolution.reason_codes
    assert all(m.startswith("local/") for m in record.models.values())


def test_the_threads_come_from_the_environment_or_half_the_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CLAIMS_CREW_LOCAL_THREADS", raising=False)
    cores = len(os.sched_getaffinity(0))
    assert LocalLLM.from_environment().threads == max(1, cores // 2)
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", "3")
    assert LocalLLM.from_environment().threads == 3
    for wrong in ("0", "two", "-1"):
        monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", wrong)
        with pytest.raises(ConfigError, match="CLAIMS_CREW_LOCAL_THREADS"):
            LocalLLM.from_environment()

"""The real local model (llama.cpp, SmolLM2-135M) end to end on one sample claim.

Its judgement is not under test, only that every output is readable: the grammar keeps even a
tiny model inside the ReAct format and the task's JSON schema.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.llms import threads
from claims_crew.llms.local import LocalLLM
from claims_crew.llms.select import default_llm_factory
from claims_crew.llms.threads import usable_cores
from claims_crew.models import Claim, IntakeFacts
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from tests.support.paths import ROOT


def test_local_model_reviews_a_claim_with_schema_valid_outputs(
    sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MODEL", raising=False)
    settings = build_context(
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


def test_the_model_loads_with_the_threads_chosen_when_it_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CLAIMS_CREW_LOCAL_THREADS", raising=False)
    cores = usable_cores()
    for load, chosen in ((0.1, cores), (4.0, 1)):
        llm = LocalLLM.from_environment()
        monkeypatch.setattr(threads, "machine_load", lambda load=load: load)
        llama = llm._load()  # the load read here, not when the model was built
        assert (llama.n_threads, llama.n_threads_batch) == (chosen, chosen)
        assert llm.chosen_threads is not None and llm.chosen_threads.threads == chosen
        assert llm.chosen_threads.load == load
    # The setting wins, on an idle machine too.
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", "3")
    monkeypatch.setattr(threads, "machine_load", lambda: 0.0)
    llama = LocalLLM.from_environment()._load()
    assert (llama.n_threads, llama.n_threads_batch) == (3, 3)

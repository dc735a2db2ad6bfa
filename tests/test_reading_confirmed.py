"""An endorsement's reading decides nothing until a lead has confirmed it, as it reads now.

The hot-tub claim C-1054 on HM-25-00417 is denied on exclusion 7.12, which HM-E-09 adds: through
the real crew (the model scripted) and the real resolver it is ACCEPTED while HM-E-07's and
HM-E-09's readings are confirmed, and escalated with `endorsement_unconfirmed`, naming the
endorsement, when they are not, when HM-E-09's corrections change, and when its PDF does. The
confirmation is an audit entry in the store (SQLite and PostgreSQL) and a line of the policies
folder's confirmations.yaml; a reviewer who is not a lead is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claims_crew.deciding.readings import confirm_reading
from claims_crew.errors import OutsideAuthority
from claims_crew.policy.confirmations import load_confirmations
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ReviewerSettings
from claims_crew.records.resolution import Resolution
from claims_crew.store import Store
from tests.support.issued_policies import HOT_TUB_CLAIM, HOT_TUB_EXCLUSION
from tests.support.openai_server import ChatRequest, Reply, StartServer, ToolCall
from tests.support.provider import CrewScript, answer, review_claim, sample_copy
from tests.support.readings import copied_unconfirmed, correct_hot_tubs
from tests.support.sample_inbox import NO_FACTS, claim_answer

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("engine")]

IN_FORCE = ("HM-E-07", "HM-E-09")  # on HM-25-00417 on C-1054's date of loss


def _denies_on_7_12(request: ChatRequest) -> Reply:
    if not request.tool_results:
        return ToolCall("policy_lookup", {"policy_id": "HM-HOME-001", "clause_id": "7.12"})
    return answer(claim_answer("not_covered", "7.12", HOT_TUB_EXCLUSION))


def _decided(
    server: StartServer, monkeypatch: pytest.MonkeyPatch, root: Path, cache: Path, n: int
) -> Resolution:
    """C-1054 (as claim n) reviewed on the policies in `root`, as a fresh library reads them."""
    claim = sample_copy(root.parent / f"inbox{n}", HOT_TUB_CLAIM)
    data = {**json.loads(claim.read_text(encoding="utf-8")), "claim_id": f"C-1054-{n}"}
    claim.write_text(json.dumps(data), encoding="utf-8")
    script = CrewScript().set(f"C-1054-{n}", "intake", answer(NO_FACTS))
    for agent in ("policy", "fraud"):
        script.set(f"C-1054-{n}", agent, _denies_on_7_12)
    library = PolicyLibrary(root=root, cache_dir=cache)
    return review_claim(server, monkeypatch, library, claim, script).resolution


def _held_back_for(resolution: Resolution, endorsement: str) -> None:
    assert resolution.outcome == "ESCALATED", resolution.reason
    assert "endorsement_unconfirmed" in resolution.reason_codes
    assert resolution.would_have_been == "ACCEPTED"
    assert f"endorsement {endorsement}" in resolution.reason


def test_a_claim_waits_for_a_person_until_the_reading_it_stands_on_is_confirmed(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    session_cache: Path,
    tmp_path: Path,
) -> None:
    root = copied_unconfirmed(tmp_path)
    unconfirmed = _decided(openai_server, monkeypatch, root, session_cache, 1)
    _held_back_for(unconfirmed, "HM-E-09")
    _held_back_for(unconfirmed, "HM-E-07")

    store = Store()
    store.add_reviewer("lee", ReviewerSettings(role="lead"))
    store.add_reviewer("dana", ReviewerSettings(role="reviewer"))
    library = PolicyLibrary(root=root, cache_dir=session_cache)
    with pytest.raises(OutsideAuthority, match="dana is not a lead"):
        confirm_reading(store, library, "HM-E-09", "dana")
    assert load_confirmations(root) == {}
    for name in IN_FORCE:
        confirm_reading(store, library, name, "lee")
    kept = load_confirmations(root)
    assert sorted(kept) == sorted(IN_FORCE) and {c.by for c in kept.values()} == {"lee"}
    entries = [e for e in store.audit_entries("") if e.kind == "reading_confirmed"]
    assert [(e.endorsement, e.reading_digest, e.actor) for e in entries] == [
        (name, kept[name].digest, "human:lee") for name in IN_FORCE
    ]
    assert store.verify_audit().ok

    confirmed = _decided(openai_server, monkeypatch, root, session_cache, 2)
    assert (confirmed.outcome, confirmed.answer) == ("ACCEPTED", "not_covered"), confirmed.reason

    # A correction on HM-E-09's entry changes its reading: unconfirmed again.
    original = correct_hot_tubs(root, "{change: 1, why: checked against the PDF}")
    _held_back_for(_decided(openai_server, monkeypatch, root, session_cache, 3), "HM-E-09")

    # So does a new PDF for it, the same words in other bytes.
    (root / "index.yaml").write_text(original, encoding="utf-8")
    assert _decided(openai_server, monkeypatch, root, session_cache, 4).outcome == "ACCEPTED"
    pdf = root / "endorsements" / "hm_e09_hot_tubs.pdf"
    pdf.write_bytes(pdf.read_bytes() + b"\n% re-issued\n")
    changed = _decided(openai_server, monkeypatch, root, session_cache, 5)
    _held_back_for(changed, "HM-E-09")
    assert "HM-E-07" not in changed.reason  # its reading is as confirmed

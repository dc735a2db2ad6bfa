"""Every audit entry is signed with the audit key, so an entry written without it is caught.

Someone with write access to the database can append a well-formed entry after the last
checkpoint: a person's decision that links to the head, hashes cleanly and has the rows it
recorded. The chain and the checkpoint cannot tell it from a real one; its missing signature can.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import insert, select, update

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.errors import CheckpointError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store, audit, audit_key
from claims_crew.store.tables import audit_head, audit_log, escalations, reviews
from tests.support.audit_trail import five_entries, signed_checkpoint

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """Five signed entries; C-1042's escalation (entry 1) is open."""
    return five_entries(tmp_path / "inbox", sample_library)


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def forge_human_decision(store: Store, key_id: str | None, signature: str | None) -> int:
    """Decide C-1042 "covered" as ana, straight in the database, as someone with write access
    and no key would: the human entry exactly as the store writes one (naming `key_id`, with
    `signature` beside it), chained to the head; the review row; the escalation closed; the
    head moved. Returns the entry's number."""
    reason = "Paid, as agreed on the phone."
    with store.write() as conn:
        head = conn.execute(select(audit_head.c.seq, audit_head.c.hash)).one()
        escalation = conn.execute(
            select(escalations).where(escalations.c.claim_id == "C-1042")
        ).one()
        overridden = conn.execute(
            select(audit_log.c.body, audit_log.c.hash).where(
                audit_log.c.seq == escalation.audit_seq
            )
        ).one()
        base = json.loads(overridden.body)
        seq, now = head.seq + 1, store.now()
        fields = {
            name: base[name]
            for name in (
                "claim_id",
                "claim_sha256",
                "policy_sha256",
                "policy_corrections_sha256",
                "config_sha256",
                "models",
                "outcome",
                "rule",
                "reason_codes",
                "evidence",
            )
        }
        entry = audit.AuditEntry(
            seq=seq,
            prev=head.hash,
            kind="human",
            answer="covered",
            actor="human:ana",
            reason=reason,
            overrides=escalation.audit_seq,
            overrides_hash=overridden.hash,
            at=now,
            **fields,
            **({"key_id": key_id} if key_id is not None else {}),
        )
        body = entry.model_dump(mode="json")
        digest = audit.entry_hash(body)
        conn.execute(
            insert(audit_log).values(
                seq=seq,
                claim_id="C-1042",
                at=now,
                body=audit.canonical(body),
                hash=digest,
                **({"signature": signature} if signature is not None else {}),
            )
        )
        conn.execute(update(audit_head).values(seq=seq, hash=digest))
        conn.execute(
            update(escalations)
            .where(escalations.c.id == escalation.id)
            .values(
                state="decided",
                version=escalation.version + 1,
                decided_by="ana",
                decided_at=now,
                decision="covered",
            )
        )
        conn.execute(
            insert(reviews).values(
                escalation_id=escalation.id,
                claim_id="C-1042",
                reviewer="ana",
                decision="covered",
                reason=reason,
                decided_at=now,
                audit_seq=seq,
            )
        )
    return seq


def test_an_honest_trail_is_signed_entry_by_entry_and_verifies(store: Store) -> None:
    key = audit_key.load_key()
    with store.read() as conn:
        rows = conn.execute(select(audit_log).order_by(audit_log.c.seq)).all()
    assert [row.seq for row in rows] == [1, 2, 3, 4, 5]
    for row in rows:
        assert json.loads(row.body)["key_id"] == key.key_id
        assert row.signature and row.signature not in row.body
    assert len({row.signature for row in rows}) == 5
    assert store.verify_audit() == audit.Verdict(True, 5)
    result = cli("audit", "verify")
    assert result.exit_code == 0 and result.stdout == "ok: 5 entries, chain intact.\n"
    export = store.export_audit()
    assert all(json.loads(line)["signature"] for line in export[1:])
    assert audit.verify_export(export, key) == audit.Verdict(True, 5)


FORGERIES = {
    # No key named: as if written before entries were signed.
    "unsigned": (False, None),
    # The key the other entries name, and the signature of the entry before it, replayed.
    "replayed signature": (True, "previous"),
    "made-up signature": (True, "ab" * 32),
}


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forged_decision_appended_after_the_checkpoint_fails_verify(
    store: Store, tmp_path: Path, forgery: str
) -> None:
    _, checkpoint_file = signed_checkpoint(tmp_path)
    names_key, signature = FORGERIES[forgery]
    key = audit_key.load_key()
    if signature == "previous":
        with store.read() as conn:
            signature = conn.execute(
                select(audit_log.c.signature).where(audit_log.c.seq == 5)
            ).scalar_one()

    seq = forge_human_decision(store, key.key_id if names_key else None, signature)

    assert seq == 6
    assert store.open_count() == 0  # C-1042 left the queue, decided "covered"
    [review] = store.reviews("C-1042")
    assert (review.reviewer, review.decision, review.audit_seq) == ("ana", "covered", 6)
    verdict = store.verify_audit()
    assert not verdict.ok and verdict.first_bad == 6
    expected = (
        "entry 6 is not signed, but the entries before it are: it was written without the audit key"
        if not names_key
        else "entry 6 does not carry the audit key's signature: it was written without the key"
    )
    assert verdict.problem == expected
    for args in ([], ["--checkpoint", str(checkpoint_file)]):
        result = cli("audit", "verify", *args)
        assert result.exit_code == 1, result.output
        assert result.stderr == f"BROKEN at entry 6: {expected}\n"
    exported = tmp_path / "audit.jsonl"
    assert cli("audit", "export", "-o", str(exported)).exit_code == 0
    result = cli("audit", "verify", "--file", str(exported), "--checkpoint", str(checkpoint_file))
    assert result.exit_code == 1 and "BROKEN at entry 6" in result.stderr
    assert cli("audit", "checkpoint").exit_code == 1  # no checkpoint is signed over it


def test_the_store_s_own_decision_after_the_checkpoint_verifies(
    store: Store, tmp_path: Path
) -> None:
    """The honest counterpart of the forgery: the same decision, made through the store."""
    _, checkpoint_file = signed_checkpoint(tmp_path)
    store.decide("C-1042", "covered", "Paid, as agreed on the phone.", "ana", rules=DeskRules())
    assert store.verify_audit() == audit.Verdict(True, 6)
    result = cli("audit", "verify", "--checkpoint", str(checkpoint_file))
    assert result.exit_code == 0, result.output


def test_a_process_with_another_key_cannot_write_to_the_trail(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker given the wrong key would write entries nobody can check: it is refused
    before it writes anything."""
    monkeypatch.setenv(audit_key.KEY_ENV, "another key, " * 4)
    with pytest.raises(CheckpointError, match="every process that writes to the store needs"):
        store.decide("C-1042", "covered", "Paid.", "ana", rules=DeskRules())
    monkeypatch.delenv(audit_key.KEY_ENV)
    assert store.open_count() == 1 and store.reviews("C-1042") == []
    assert store.verify_audit() == audit.Verdict(True, 5)


def test_signed_entries_are_not_checked_without_the_key(store: Store, tmp_path: Path) -> None:
    exported = tmp_path / "audit.jsonl"
    assert cli("audit", "export", "-o", str(exported)).exit_code == 0
    audit_key.key_path().unlink()
    for args in ([], ["--file", str(exported)]):
        result = cli("audit", "verify", *args)
        assert result.exit_code == 2, result.output
        assert "no audit key to check the signature of entry 1" in result.stderr
    assert not audit_key.key_path().exists()  # checking never makes a key

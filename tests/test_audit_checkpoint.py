"""Signed checkpoints: a rewrite or a cut of the chain that re-hashes cleanly is still caught.

Someone with write access to the database can re-hash every entry after the one they changed,
or cut entries off the end and move the head back; the chain then verifies. A checkpoint of the
head signed with the audit key, which the database never holds, cannot be moved with it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import Connection, select, text

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.errors import CheckpointError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store, audit, audit_key, checkpoint
from claims_crew.store.tables import metadata
from tests.support.audit_trail import five_entries, signed_checkpoint
from tests.support.chain import rewrite_unsigned

pytestmark = pytest.mark.usefixtures("engine")

KEY = "k" * 40


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """Entries: 1 C-1042 escalated, 2 C-2000 accepted, 3 C-3000 escalated, 4 C-4000 accepted,
    5 ana's review of C-3000."""
    return five_entries(tmp_path / "inbox", sample_library)


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _rows(conn: Connection) -> list[tuple[int, str, str]]:
    rows = conn.execute(text("SELECT seq, body, hash FROM audit_log ORDER BY seq"))
    return [(int(r.seq), r.body, r.hash) for r in rows]


def rewrite_as_accepted(store: Store, claim_id: str) -> None:
    """Turn an escalated claim into an automatic acceptance everywhere it is written, and
    re-hash the chain from its entry on, as an attacker with the database alone can. Without
    the key they cannot sign, so they make every entry look as if it was written before
    entries were signed: no key named, no signature."""
    new = {
        "kind": "auto",
        "outcome": "ACCEPTED",
        "answer": "covered",
        "rule": "agree",
        "reason_codes": [],
        "reason": "Both agree.",
    }

    def edit(entry: dict[str, Any]) -> None:
        if entry["claim_id"] == claim_id:
            entry.update(new)

    with store.write() as conn:
        rewrite_unsigned(conn, edit)
        claim = {"claim_id": claim_id}
        conn.execute(
            text(
                "UPDATE decisions SET outcome = 'ACCEPTED', answer = 'covered' "
                "WHERE claim_id = :claim_id"
            ),
            claim,
        )
        resolution = conn.execute(
            text("SELECT id, body FROM resolutions WHERE claim_id = :claim_id"), claim
        ).one()
        # The resolution's body says what the entry says, but for the entry's kind.
        body = {**json.loads(resolution.body), **{k: v for k, v in new.items() if k != "kind"}}
        conn.execute(
            text(
                "UPDATE resolutions SET outcome = 'ACCEPTED', answer = 'covered', rule = 'agree', "
                "reason_codes = '[]', body = :body WHERE id = :id"
            ),
            {"body": json.dumps(body), "id": resolution.id},
        )
        conn.execute(text("DELETE FROM escalations WHERE claim_id = :claim_id"), claim)
        conn.execute(text("DELETE FROM assignments WHERE claim_id = :claim_id"), claim)


def cut_tail(store: Store, keep: int) -> None:
    """Delete the entries after `keep` and the rows they recorded, and move the head back."""
    with store.write() as conn:
        kept = _rows(conn)[keep - 1]
        after = {"keep": keep}
        conn.execute(text("DELETE FROM reviews WHERE audit_seq > :keep"), after)
        conn.execute(
            text(
                "UPDATE escalations SET state = 'open', version = 1, decided_by = NULL, "
                "decided_at = NULL, decision = NULL "
                "WHERE id NOT IN (SELECT escalation_id FROM reviews)"
            )
        )
        for table in ("escalations", "validations", "decisions"):
            conn.execute(text(f"DELETE FROM {table} WHERE audit_seq > :keep"), after)
        conn.execute(text("DELETE FROM audit_log WHERE seq > :keep"), after)
        conn.execute(
            text("UPDATE audit_head SET seq = :seq, hash = :hash"),
            {"seq": kept[0], "hash": kept[2]},
        )


def test_a_checkpoint_is_signed_json_and_verifies(store: Store, tmp_path: Path) -> None:
    signed, path = signed_checkpoint(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) == {
        "audit_checkpoint",
        "seq",
        "hash",
        "at",
        "algorithm",
        "key_id",
        "signature",
    }
    with store.read() as conn:
        assert (signed.seq, signed.hash) == audit.head(conn) and signed.seq == 5
    key = audit_key.load_key()
    assert signed.key_id == key.key_id and checkpoint.signature_problem(signed, key) is None
    assert store.verify_audit(signed, key) == audit.Verdict(True, 5)
    result = cli("audit", "verify", "--checkpoint", str(path))
    assert result.exit_code == 0
    assert "It extends the signed checkpoint of entry 5." in result.stdout


def test_a_rehashed_rewrite_is_caught_by_the_checkpoint(store: Store, tmp_path: Path) -> None:
    signed, path = signed_checkpoint(tmp_path)
    assert store.open_count() == 1
    rewrite_as_accepted(store, "C-1042")
    assert store.open_count() == 0  # C-1042 left the queue
    # The chain and the rows agree, and no entry names a key: the rewrite is consistent.
    assert store.verify_audit() == audit.Verdict(True, 5, unsigned=5)
    verdict = store.verify_audit(signed, audit_key.load_key())
    assert not verdict.ok and verdict.first_bad == 5
    assert verdict.problem == (
        "entry 5 no longer has the hash of the signed checkpoint: "
        "the chain was rewritten at or before entry 5"
    )
    result = cli("audit", "verify", "--checkpoint", str(path), "--json")
    assert result.exit_code == 1 and json.loads(result.stdout)["first_bad"] == 5


def test_a_cut_tail_with_the_head_moved_back_is_caught(store: Store, tmp_path: Path) -> None:
    _, path = signed_checkpoint(tmp_path)
    cut_tail(store, 3)
    assert store.verify_audit() == audit.Verdict(True, 3)  # the chain alone looks whole
    result = cli("audit", "verify", "--checkpoint", str(path))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "BROKEN at entry 4: the chain ends at entry 3, but the signed checkpoint holds entry 5: "
        "entries were cut off the end"
    )


def test_an_export_with_its_last_line_dropped_is_caught(store: Store, tmp_path: Path) -> None:
    signed, cp_path = signed_checkpoint(tmp_path)
    export = tmp_path / "audit.jsonl"
    assert cli("audit", "export", "-o", str(export)).exit_code == 0
    lines = export.read_text(encoding="utf-8").splitlines()
    key = audit_key.load_key()
    assert checkpoint.verify_export(lines, signed, key) == audit.Verdict(True, 5)
    header = json.loads(lines[0])
    last = json.loads(lines[-2])
    header["audit_export"].update(entries=4, last_seq=4, last_hash=last["hash"])
    cut = [audit.canonical(header), *lines[1:-1]]
    export.write_text("\n".join(cut) + "\n", encoding="utf-8")
    assert audit.verify_export(cut, key).ok  # the export alone looks whole
    verdict = checkpoint.verify_export(cut, signed, key)
    assert not verdict.ok and verdict.first_bad == 5
    assert "the export ends at entry 4" in (verdict.problem or "")
    result = cli("audit", "verify", "--file", str(export), "--checkpoint", str(cp_path))
    assert result.exit_code == 1 and "BROKEN at entry 5" in result.stderr


def test_an_export_from_after_the_checkpoint_cannot_show_it(store: Store, tmp_path: Path) -> None:
    signed, _ = signed_checkpoint(tmp_path)
    store.decide("C-1042", "covered", "The plumber dates the leak.", "ana", rules=DeskRules())
    lines = store.export_audit()
    key = audit_key.load_key()
    header = json.loads(lines[0])
    # Entry 6 alone, as an export --since would write it.
    header["audit_export"].update(entries=1, first_seq=6)
    late = [audit.canonical(header), lines[6]]
    assert audit.verify_export(late, key).ok
    verdict = checkpoint.verify_export(late, signed, key)
    assert not verdict.ok
    assert "starts at entry 6, after the checkpoint's entry 5" in str(verdict.problem)
    # From entry 4 on, the export holds the checkpoint's entry and extends it.
    header["audit_export"].update(entries=3, first_seq=4)
    assert checkpoint.verify_export([audit.canonical(header), *lines[4:]], signed, key).ok


def test_entries_appended_after_a_checkpoint_still_extend_it(store: Store, tmp_path: Path) -> None:
    signed, path = signed_checkpoint(tmp_path)
    store.decide("C-1042", "covered", "The plumber dates the leak.", "ana", rules=DeskRules())
    assert store.verify_audit(signed, audit_key.load_key()) == audit.Verdict(True, 6)
    assert cli("audit", "verify", "--checkpoint", str(path)).exit_code == 0


def test_an_altered_or_foreign_checkpoint_is_refused(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signed, path = signed_checkpoint(tmp_path)
    cut_tail(store, 3)
    # Moving the checkpoint back with the chain breaks its signature.
    with store.read() as conn:
        moved = signed.model_copy(update=dict(zip(("seq", "hash"), audit.head(conn), strict=True)))
    path.write_text(moved.model_dump_json(), encoding="utf-8")
    result = cli("audit", "verify", "--checkpoint", str(path), "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["problem"] == (
        "the checkpoint's signature does not match its contents: it was altered"
    )
    # A checkpoint the attacker signs with a key of their own names another key.
    monkeypatch.setenv(audit_key.KEY_ENV, KEY)
    forged = checkpoint.sign(moved.seq, moved.hash, moved.at, audit_key.load_key())
    path.write_text(forged.model_dump_json(), encoding="utf-8")
    monkeypatch.delenv(audit_key.KEY_ENV)
    result = cli("audit", "verify", "--checkpoint", str(path))
    assert result.exit_code == 1 and "was signed with key" in result.stderr


def test_the_key_file_is_made_private_on_first_use_and_never_by_verify(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    key_file = audit_key.key_path()
    assert not key_file.exists()
    with pytest.raises(CheckpointError, match="no audit key"):
        audit_key.load_key()
    assert cli("audit", "verify").exit_code == 0  # an empty trail: nothing signed to check
    assert not key_file.exists()
    result = cli("audit", "checkpoint")
    assert result.exit_code == 0 and "Created the audit key" in result.stderr
    key_file.unlink()
    store = five_entries(tmp_path / "inbox", sample_library)  # the first entry makes it
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(bytes.fromhex(key_file.read_text(encoding="ascii"))) == 32
    secret = key_file.read_bytes()
    with store.read() as conn:  # the key is nowhere in the database
        dump = "\n".join(
            repr(tuple(row))
            for table in metadata.sorted_tables
            for row in conn.execute(select(table))
        )
    assert "C-1042" in dump and secret.strip().decode() not in dump
    again = cli("audit", "checkpoint")
    assert again.exit_code == 0 and "Created" not in again.stderr
    assert key_file.read_bytes() == secret  # the same key, not a new one
    os.chmod(key_file, 0o644)
    refused = cli("audit", "checkpoint")
    assert refused.exit_code == 2 and "chmod 600" in refused.stderr


def test_verify_with_a_checkpoint_but_no_key_is_refused(store: Store, tmp_path: Path) -> None:
    _, path = signed_checkpoint(tmp_path)
    audit_key.key_path().unlink()
    result = cli("audit", "verify", "--checkpoint", str(path))
    assert result.exit_code == 2 and "no audit key" in result.stderr
    assert not audit_key.key_path().exists()


def test_the_key_may_come_from_the_environment(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(audit_key.KEY_ENV, KEY)
    five_entries(tmp_path / "inbox", sample_library)
    signed, path = signed_checkpoint(tmp_path)
    assert not audit_key.key_path().exists()
    assert signed.key_id == audit_key.AuditKey(KEY.encode(), "test").key_id
    assert cli("audit", "verify", "--checkpoint", str(path)).exit_code == 0
    monkeypatch.setenv(audit_key.KEY_ENV, "short")
    result = cli("audit", "checkpoint")
    assert result.exit_code == 2 and "at least 32" in result.stderr


def test_no_checkpoint_is_signed_over_a_broken_trail(store: Store) -> None:
    with store.write() as conn:
        conn.execute(text("UPDATE escalations SET state = 'decided' WHERE claim_id = 'C-1042'"))
    result = cli("audit", "checkpoint")
    assert result.exit_code == 1 and result.stdout == ""
    assert "BROKEN at entry 1" in result.stderr and "no checkpoint signed" in result.stderr


def test_a_file_that_is_not_a_checkpoint_is_refused(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "not-a-checkpoint.json"
    path.write_text('{"seq": 1}', encoding="utf-8")
    result = cli("audit", "verify", "--checkpoint", str(path))
    assert result.exit_code == 2 and "is not an audit checkpoint" in result.stderr
    error = json.loads(cli("audit", "verify", "--checkpoint", str(path), "--json").stdout)
    assert error["error"]["code"] == "checkpoint"

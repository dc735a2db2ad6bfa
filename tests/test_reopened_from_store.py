"""An appeal and a revalidation read only what the store kept, on SQLite and PostgreSQL.

Once a claim is decided, its inbox is not read again: a file there may since have been replaced
by a link to anything (/etc/passwd, the audit key). The originals are the bytes intake kept under
CLAIMS_CREW_HOME, checked by their SHA-256, and a kept file that no longer matches is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.desk import DeskRules
from claims_crew.documents.kept import originals_dir
from claims_crew.errors import KeptFileError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.appeal import appeal
from claims_crew.run.context import RunContext, build_context
from claims_crew.run.revalidate import revalidate
from claims_crew.store import Store
from claims_crew.vocabulary import utc_now
from tests.support.crew import Script, water_script
from tests.support.paths import ROOT
from tests.support.store import water_loaded

pytestmark = pytest.mark.usefixtures("engine")

NOTES = "Plumber's notes: the joint under the bath split the morning it was found."
SECRET = "root:x:0:0:SECRET-OUTSIDE-THE-INBOX"
NEW = "A second plumber's report, dated the day after the leak."


def decided_claim(tmp_path: Path) -> tuple[Store, Path]:
    """C-1042 with a text attachment, reviewed as `run` reviews it, then decided by a person;
    the inbox attachment's path is returned."""
    inbox = tmp_path / "inbox"
    water_loaded(inbox, "C-1042", attachments=["plumber-notes.txt"])
    notes = inbox / "plumber-notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    assert review_inbox(inbox, 1, Console(record=True), llm_for=water_script()) == 0
    store = Store()
    store.add_reviewer("ana")
    store.decide("C-1042", "not_covered", "Gradual seepage, as 7.1 says.", "ana", rules=DeskRules())
    return store, notes


def linked_away(tmp_path: Path, inbox_file: Path) -> None:
    """The inbox attachment replaced by a link to a file outside the inbox."""
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text(SECRET, encoding="utf-8")
    inbox_file.unlink()
    inbox_file.symlink_to(secret)


def new_evidence(tmp_path: Path) -> Path:
    path = tmp_path / "new" / "second-report.txt"
    path.parent.mkdir()
    path.write_text(NEW, encoding="utf-8")
    return path


def settings_for(library: PolicyLibrary, store: Store) -> tuple[RunContext, Script]:
    script = water_script()
    return build_context(
        library=library, llm_for=script, store=store, config_dir=ROOT / "config"
    ), (script)


def intake_saw(script: Script) -> str:
    (first, *_) = script.llms["intake"].calls
    return "\n".join(str(m.get("content", "")) for m in first)


def kept_original(text: str) -> Path:
    return originals_dir() / hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_an_appeal_takes_the_originals_from_the_store_never_through_an_inbox_link(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, notes = decided_claim(tmp_path)
    linked_away(tmp_path, notes)
    settings, script = settings_for(sample_library, store)

    done = appeal(settings, "C-1042", [new_evidence(tmp_path)], "A second report.")

    assert done.error is None and done.escalated
    seen = intake_saw(script)
    assert SECRET not in seen
    assert NOTES in seen and NEW in seen  # the kept original and the new evidence
    # The text of record of the appeal's entry is the kept one, not the link's target.
    record = store.claim_record("C-1042")
    assert record is not None
    kept = store.kept_records("C-1042", record.claim_sha256) or {}
    assert kept["plumber-notes.txt"].text == NOTES
    assert kept["second-report.txt"].text == NEW
    assert store.verify_audit().ok


def test_the_appeal_command_exits_with_the_originals_kept_not_the_link(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reported case, through the command line: the model is never sent the link's file."""
    _, notes = decided_claim(tmp_path)
    linked_away(tmp_path, notes)
    script = water_script()
    monkeypatch.setattr("claims_crew.llms.select.default_llm_factory", lambda *_a, **_k: script)

    result = CliRunner().invoke(
        main,
        ["appeal", "C-1042", "--attach", str(new_evidence(tmp_path)), "--reason", "New report."],
    )

    assert result.exit_code == 0, result.output
    assert SECRET not in intake_saw(script) and NOTES in intake_saw(script)


def test_an_appeal_refuses_a_new_attachment_that_is_a_link(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, _ = decided_claim(tmp_path)
    link = tmp_path / "report-link.txt"
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    link.symlink_to(secret)
    settings, script = settings_for(sample_library, store)

    with pytest.raises(KeptFileError, match="not followed") as refused:
        appeal(settings, "C-1042", [link], "A linked report.")

    assert refused.value.code == "not_a_file"
    assert script.llms["intake"].calls == []


@pytest.mark.parametrize("how", ["changed", "link"])
def test_an_appeal_refuses_a_kept_original_that_is_not_what_intake_read(
    tmp_path: Path, sample_library: PolicyLibrary, how: str
) -> None:
    store, _ = decided_claim(tmp_path)
    kept = kept_original(NOTES)
    assert kept.read_text(encoding="utf-8") == NOTES  # intake kept the text attachment too
    kept.unlink()
    if how == "changed":
        kept.write_text(SECRET, encoding="utf-8")
    else:
        (tmp_path / "elsewhere.txt").write_text(NOTES, encoding="utf-8")
        kept.symlink_to(tmp_path / "elsewhere.txt")
    settings, script = settings_for(sample_library, store)

    with pytest.raises(KeptFileError, match=r"plumber-notes\.txt") as refused:
        appeal(settings, "C-1042", [new_evidence(tmp_path)], "A second report.")

    assert refused.value.code == ("changed" if how == "changed" else "not_a_file")
    assert script.llms["intake"].calls == []
    # Nothing was decided: ana's decision stands.
    assert [r.decision for r in store.reviews("C-1042")] == ["not_covered"]


def test_a_revalidation_reads_the_kept_claim_not_the_inbox_link(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, notes = decided_claim(tmp_path)
    linked_away(tmp_path, notes)
    settings, script = settings_for(sample_library, store)

    (outcome,) = revalidate(settings, utc_now(), ["C-1042"])

    assert outcome.error is None, outcome.error
    seen = intake_saw(script)
    assert SECRET not in seen and NOTES in seen
    record = store.claim_record("C-1042")
    assert record is not None
    kept = store.kept_records("C-1042", record.claim_sha256) or {}
    assert kept["plumber-notes.txt"].text == NOTES


def test_a_revalidation_refuses_a_kept_original_that_changed(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store, _ = decided_claim(tmp_path)
    kept = kept_original(NOTES)
    kept.unlink()
    kept.write_text(SECRET, encoding="utf-8")
    settings, script = settings_for(sample_library, store)

    (outcome,) = revalidate(settings, utc_now(), ["C-1042"])

    assert outcome.error is not None and "SHA-256 differs" in outcome.error
    assert script.llms["intake"].calls == []
    result = CliRunner().invoke(main, ["revalidate", "C-1042", "--json"])
    assert result.exit_code != 0
    assert "SHA-256 differs" in json.dumps(json.loads(result.stdout))


def test_a_changed_claim_file_is_revalidated_once_ingest_has_taken_it_in(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    """The inbox's newer version is not read by the revalidation itself; ingest keeps it (as a
    file changed after the decision), and the revalidation reviews that kept version."""
    store, notes = decided_claim(tmp_path)
    claim_path = notes.parent / "C-1042.json"
    data = json.loads(claim_path.read_text(encoding="utf-8"))
    data["description"] += " The stain was first seen on 3 November 2025."
    claim_path.write_text(json.dumps(data), encoding="utf-8")
    settings, script = settings_for(sample_library, store)

    (before,) = revalidate(settings, utc_now(), ["C-1042"])
    assert "first seen on 3 November" not in intake_saw(script)
    assert before.error is None

    result = CliRunner().invoke(main, ["ingest", str(notes.parent)])
    assert result.exit_code == 0, result.output
    settings, script = settings_for(sample_library, store)
    (after,) = revalidate(settings, utc_now(), ["C-1042"])
    assert after.error is None, after.error
    assert "first seen on 3 November" in intake_saw(script)

"""Appeals: a decided claim reopened with new evidence and reviewed again.

An appeal is refused, with the reason, unless the claim has a decision in force that no person
is still to make (no decision at all, or an escalation still open): deciding/appeals.py's
checks, which need no model and which the command makes before loading any. Otherwise:

1. the claim is put together again in CLAIMS_CREW_HOME/appeals/CLAIM_ID/SEQ/ (SEQ: the entry
   the appeal replaces, so a re-run after a failure starts over in the same folder) from what
   the store kept, never from the inbox: the claim file's decided version, its attachments'
   text of record and their original bytes as intake kept them (checked by their SHA-256), and
   the new files, each opened without following a link. It is read back by `load_claim`, the
   intake path every claim file takes: the new attachments through the same readers, the
   originals as the text of record the decision stood on;
2. it is decided again by the claim routine `run` and `work` use (routine.decide_again: the
   claim's lease, the review within the deadline);
3. the result is recorded as a new decision (Store.record_appeal): the decision, escalation and
   review in force are kept whole in `superseded`, and the new entry names the entry it
   replaces by number and hash, with the reason and the new attachments. Nothing is edited.

An appeal of a person's decision goes to a person: whatever the rules now say is kept as
would_have_been, the claim is escalated again on a new clock (from the day of the appeal), and
the reviewer who decided it is recorded as left out of it (the store refuses their decision).
A review that fails records its attempt and leaves the decision in force as it was.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from claims_crew.claim_files import LoadedClaim, load_claim
from claims_crew.deciding.appeals import AppealRefused, appeal_taken
from claims_crew.desk import clocks
from claims_crew.documents.kept import (
    kept_bytes,
    originals_dir,
    read_plain_file,
    write_new_file,
)
from claims_crew.errors import ClaimFileError
from claims_crew.records import ClaimRecord
from claims_crew.resolver import Resolution
from claims_crew.run.context import RunContext
from claims_crew.run.project import project_settings
from claims_crew.run.routine import ReviewFailed, decide_again, for_a_person, said
from claims_crew.settings import home
from claims_crew.store import Standing, Store


@dataclass(frozen=True)
class AppealOutcome:
    """What one appeal did."""

    claim_id: str
    replaces: int  # the entry in force that the appeal's decision replaces
    outcome: str | None = None
    answer: str | None = None
    audit_seq: int | None = None
    escalated: bool = False
    previous_reviewer: str | None = None
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "claim_id": self.claim_id,
            "replaces": self.replaces,
            "outcome": self.outcome,
            "answer": self.answer,
            "audit_seq": self.audit_seq,
            "back_to_queue": self.escalated,
            "previous_reviewer": self.previous_reviewer,
            "error": self.error,
        }


def appeals_dir() -> Path:
    return home() / "appeals"


def reopened_claim(
    settings: RunContext, standing: Standing, attachments: Sequence[Path], folder: Path
) -> LoadedClaim:
    """The decided claim with the new attachments, written to `folder` and read back as any
    claim file is.

    The claim file and its attachments' text of record are the store's, as the decision stood
    on them; each original's bytes come from where intake kept them, checked by their SHA-256
    (KeptFileError if they are gone or changed). No inbox path is opened: a file there may since
    have been replaced, or made a link to anything. Only the new attachments are read, each
    opened without following a link.
    """
    kept = settings.store.loaded(standing.claim_id, standing.claim_sha256)
    if kept is None:
        raise AppealRefused(
            f"claim {standing.claim_id}: the store keeps no text of record for the claim file "
            "it was decided on; take that file in again (claims-crew ingest) to appeal it"
        )
    claim = kept.claim
    names = [Path(a).name for a in attachments]
    taken = set(claim.attachments)
    clash = sorted({n for n in names if n in taken or names.count(n) > 1})
    if clash:
        raise AppealRefused(
            f"claim {standing.claim_id} already has an attachment named {', '.join(clash)}; "
            "give the new file another name"
        )
    lost = [n for n in claim.attachments if n not in kept.documents]
    if lost:
        raise AppealRefused(
            f"claim {standing.claim_id}: the store keeps no text of record for "
            f"{', '.join(lost)}; take the claim file in again (claims-crew ingest) to appeal it"
        )
    copies = {n: kept_bytes(kept.documents[n]) for n in claim.attachments}  # KeptFileError
    news = {name: read_plain_file(Path(a)) for name, a in zip(names, attachments, strict=True)}
    if folder.exists():  # a failed appeal's leftovers: start over
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, data in [*copies.items(), *news.items()]:
        if data is not None:  # an original intake kept no bytes of: its text of record stands
            write_new_file(folder / name, data)
    # A real claim's reopened file reads as it did: no `sample: false` it never had.
    unmarked = set() if claim.sample else {"sample"}
    fields = claim.model_dump(mode="json", exclude_none=True, exclude=unmarked)
    fields["attachments"] = [*claim.attachments, *names]
    path = folder / f"{standing.claim_id}.json"
    write_new_file(path, json.dumps(fields, indent=2, ensure_ascii=False).encode("utf-8"))
    try:
        return load_claim(path, originals=originals_dir(), taken=kept.documents)
    except ClaimFileError as exc:
        raise AppealRefused(str(exc)) from exc


def appeal(
    settings: RunContext,
    claim_id: str,
    attachments: Sequence[Path],
    reason: str,
    on_start: Callable[[Path], None] | None = None,
) -> AppealOutcome:
    """Reopen `claim_id` with `attachments`, review it again and record the new decision.
    `on_start(path)` is told when the reopened claim file's review begins (cli/progress.py
    shows it under way)."""
    reason = reason.strip()
    standing = appeal_taken(settings.store, claim_id, attachments, reason)
    folder = appeals_dir() / claim_id / str(standing.entry_seq)
    loaded = reopened_claim(settings, standing, attachments, folder)
    person = standing.human
    result = AppealOutcome(claim_id, standing.entry_seq, previous_reviewer=person and person[0])
    link = {
        "reason": reason,
        "attachments": [Path(a).name for a in attachments],
        "previous_reviewer": person[0] if person else None,
    }

    def record_new(record: ClaimRecord, resolution: Resolution) -> AppealOutcome:
        if person is not None:
            reviewer, decision, _ = person
            resolution = for_a_person(
                resolution,
                f"Appealed ({reason}); {reviewer} decided {decision}. With the new evidence "
                f"the rules say {said(resolution)}. A different reviewer decides.",
                f"{reviewer} decided {decision}; the claimant appeals with new evidence. "
                "Does the decision stand?",
            )
            record = record.model_copy(update={"resolution": resolution})
        assert settings.clocks is not None
        # An appeal's clock runs from the day of the appeal, not the day the claim was reported.
        clock = clocks.deadlines(settings.clocks, clocks.today(), loaded.claim.jurisdiction)
        basis = replace(
            settings.basis(record, loaded),
            deadlines=clock,
            excluded_reviewers=(person[0],) if person else (),
        )
        done = settings.store.record_appeal(record, loaded, basis, link, standing.entry_seq)
        return replace(
            result,
            outcome=resolution.outcome,
            answer=resolution.answer,
            audit_seq=done.audit_seq,
            escalated=done.escalation_id is not None,
        )

    if on_start is not None:
        on_start(loaded.path)
    try:
        return decide_again(settings, loaded, record_new)
    except ReviewFailed as failed:
        return replace(result, error=f"{failed}; the decision stands")


def appeal_from_page(store: Store, claim_id: str, files: list[Path], reason: str) -> str | None:
    """An appeal sent from the review page, under the project's settings (the config checked
    as `claims-crew appeal` checks it); why it was not decided, or None."""
    return appeal(project_settings(store), claim_id, files, reason).error

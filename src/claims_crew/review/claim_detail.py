"""Any claim, decided by a person or not, as plain data: `claims-crew claim show` renders it.

The queue's views (views.py) show an escalation; a claim the rules or the adjudicator decided
has none, yet a reviewer asks the same things of it: where it stands, what was decided and by
whom, the facts it rests on, its letter and its audit entries. Each part is read as another
view already reads it, so that the command cannot say otherwise than they do: the state,
decision and amount as the service API answers them (api/views.py), who decided as the letter
says it (letters/content.py), the facts as the review page checks them (views.py), and the
trail as `review show` lists it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from claims_crew import settings
from claims_crew.api.views import claim_view
from claims_crew.errors import NotFound
from claims_crew.letters.content import NoLetter, decided_by
from claims_crew.letters.issue import stored_letter
from claims_crew.letters.render import LETTERS_DIR
from claims_crew.resolver.external_codes import load_external_codes
from claims_crew.review.desk_views import desk_detail
from claims_crew.review.views import fact_checks
from claims_crew.settings.command import command

if TYPE_CHECKING:
    from claims_crew.store import Store
    from claims_crew.store.letters import DecisionOnFile

# What a reviewer is told to type to get the letter: `letter` writes it and records it issued.
LETTER_COMMAND = "letter {claim_id} --format pdf --out {claim_id}.pdf"
# The claim file's fields shown at the head, in this order.
HEAD_FIELDS = ("policy_id", "policy_number", "claimant", "date_of_loss", "amount", "currency")
TRAIL_FIELDS = {"seq", "kind", "actor", "answer", "reason", "at"}


def _escalation(store: Store, claim_id: str) -> dict[str, Any] | None:
    """The claim's escalation, if it ever had one; None when nobody was asked."""
    try:
        found = store.escalation(claim_id)
    except NotFound:
        return None
    if found.claim_id != claim_id:  # a claim id that reads as another escalation's number
        return None
    # Who has it and any decision waiting for a second reviewer, as the queue shows them.
    return {
        "id": found.id,
        "state": found.state,
        "question": found.question,
        "decide_by": found.decide_by,
        "decided_by": found.decided_by,
        "decided_at": found.decided_at,
        **desk_detail(store, claim_id),
    }


def _letter(store: Store, claim_id: str) -> dict[str, Any]:
    """Whether a letter can be written and how, or why not; and each one issued so far."""
    folder = settings.config_dir() / LETTERS_DIR
    try:
        stored_letter(store, claim_id, folder)
        why = None
    except NoLetter as exc:
        why = str(exc)
    return {
        "available": why is None,
        "why": why,
        "command": command(LETTER_COMMAND.format(claim_id=claim_id)) if why is None else None,
        "issued": [
            {"format": i.format, "sha256": i.sha256, "issued_at": i.issued_at, "seq": i.audit_seq}
            for i in store.letters_issued(claim_id)
        ],
    }


def _made_by(on_file: DecisionOnFile | None) -> dict[str, Any] | None:
    return decided_by(on_file).model_dump(mode="json") if on_file is not None else None


def claim_detail(store: Store, claim_id: str) -> dict[str, Any]:
    """Everything the store knows of one claim; NotFound when it keeps no file of it."""
    status = store.claim_state(claim_id)
    if status is None:
        raise NotFound(f"no claim {claim_id!r} in the store")
    view = claim_view(store, "", status, load_external_codes())
    claim_file = store.claim_file(claim_id)
    record = store.claim_record(claim_id)
    resolution = record.resolution if record else None
    head = claim_file.model_dump(mode="json") if claim_file else {}
    return {
        **view.model_dump(mode="json", exclude={"links"}),
        "claim": {name: head.get(name) for name in HEAD_FIELDS},
        "description": head.get("description"),
        "made_by": _made_by(store.decision_on_file(claim_id)),
        "rule_reason": resolution.reason if resolution else None,
        "escalation": _escalation(store, claim_id),
        "facts": fact_checks(record.intake if record else None, resolution),
        "letter": _letter(store, claim_id),
        "trail": [
            e.model_dump(mode="json", include=TRAIL_FIELDS) for e in store.audit_entries(claim_id)
        ],
    }

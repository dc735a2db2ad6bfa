"""Issuing a letter: the stored decision read, the letter rendered, its hash an audit entry.

The letter's bytes are hashed exactly as they are written out, and the entry is appended only
if the decision it states is still the one in force when it is written (letters.py in the
store), so the trail names the letter that was sent, for the decision it states.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from claims_crew.errors import ConfigError
from claims_crew.letters.content import Letter, NoLetter, UnknownClaim, letter_for
from claims_crew.letters.render import Format, render_text
from claims_crew.resolver.external_codes import load_external_codes

if TYPE_CHECKING:
    from claims_crew.store import Store
    from claims_crew.store.letters import IssuedLetter


def letter_bytes(folder: Path, format: Format, letter: Letter) -> bytes:
    """The letter as sent, in `format`, from the templates in `folder`."""
    text = render_text(folder, format, letter)
    if format == "pdf":
        from claims_crew.letters.pdf import pdf_bytes  # fpdf2 only when a PDF is written

        return pdf_bytes(text, f"Decision on claim {letter.claim_id}")
    return text.encode("utf-8")


def stored_letter(store: Store, claim_id: str, folder: Path) -> Letter:
    """The letter for the claim's decision in force, with the team's code from the
    reason_codes.yaml beside the letters folder; NoLetter when it has none."""
    on_file = store.decision_on_file(claim_id)
    if on_file is None:
        if store.knows_claim(claim_id):
            raise NoLetter(f"claim {claim_id} is pending: it has no decision yet")
        raise UnknownClaim(f"no claim {claim_id!r} in the store")
    return letter_for(on_file, load_external_codes(folder.parent))


@dataclass(frozen=True)
class Issued:
    content: bytes
    sha256: str
    entry: IssuedLetter


def issue_letter(
    store: Store, claim_id: str, format: Format, folder: Path, out: Path | None = None
) -> Issued:
    """Render the claim's letter, record it in the audit trail and, given `out`, write it
    there. The file is written beside `out` first and moved into place only once the entry is
    recorded: a letter that cannot be rendered or recorded leaves neither file nor entry."""
    letter = stored_letter(store, claim_id, folder)
    content = letter_bytes(folder, format, letter)
    digest = hashlib.sha256(content).hexdigest()
    if out is None:
        return Issued(
            content, digest, store.record_letter(claim_id, format, digest, letter.reference)
        )
    partial = out.with_name(f".{out.name}.partial")
    partial.write_bytes(content)
    try:
        entry = store.record_letter(claim_id, format, digest, letter.reference)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, out)
    return Issued(content, digest, entry)


def letter_preview(store: Store, claim_id: str, folder: Path) -> dict[str, str | None]:
    """The Markdown letter a decided claim would get, for the review page and `review show`:
    `text`, or `why` there is none. A preview is not a letter sent: nothing is recorded."""
    try:
        text = render_text(folder, "md", stored_letter(store, claim_id, folder))
    except NoLetter as exc:
        return {"text": None, "why": str(exc)}
    except ConfigError as exc:
        return {"text": None, "why": f"the letter template cannot render it: {exc}"}
    return {"text": text, "why": None}

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

from claims_crew.documents.kept import write_new_file
from claims_crew.errors import ClaimsCrewError, ConfigError
from claims_crew.letters.content import Letter, NoLetter, UnknownClaim, letter_for
from claims_crew.letters.render import Format, render_text
from claims_crew.letters.wording import load_style
from claims_crew.resolver.external_codes import load_external_codes

if TYPE_CHECKING:
    from claims_crew.store import Store
    from claims_crew.store.letters import IssuedLetter


def letter_bytes(folder: Path, format: Format, letter: Letter) -> tuple[bytes, tuple[str, ...]]:
    """The letter as sent, in `format`, from the templates in `folder`, and what it notes it
    could not show (a PDF whose font lacks a character: pdf.py), one line each."""
    text = render_text(folder, format, letter)
    if format == "pdf":
        from claims_crew.letters.pdf import pdf_letter  # fpdf2 only when a PDF is written

        made = pdf_letter(text, f"Decision on claim {letter.claim_id}")
        return made.content, made.unshown
    return text.encode("utf-8"), ()


def stored_letter(store: Store, claim_id: str, folder: Path) -> Letter:
    """The letter for the claim's decision in force, with the team's code from the
    reason_codes.yaml beside the letters folder; NoLetter when it has none."""
    on_file = store.decision_on_file(claim_id)
    if on_file is None:
        if store.knows_claim(claim_id):
            raise NoLetter(f"claim {claim_id} is pending: it has no decision yet")
        raise UnknownClaim(f"no claim {claim_id!r} in the store")
    return letter_for(on_file, load_external_codes(folder.parent), load_style(folder))


@dataclass(frozen=True)
class Issued:
    content: bytes
    sha256: str
    entry: IssuedLetter
    # What the letter itself notes it could not show (a PDF's font lacks a glyph): one line each.
    unshown: tuple[str, ...] = ()


class OutExists(ClaimsCrewError):
    """The file a letter would be written to is already there (or its partial file is), and
    overwriting was not asked for."""


def issue_letter(
    store: Store,
    claim_id: str,
    format: Format,
    folder: Path,
    out: Path | None = None,
    force: bool = False,
) -> Issued:
    """Render the claim's letter, record it in the audit trail and, given `out`, write it
    there. The file is written beside `out` first and moved into place only once the entry is
    recorded: a letter that cannot be rendered or recorded leaves neither file nor entry. An
    existing `out` is replaced only with `force` (OutExists otherwise, before anything is
    recorded)."""
    if out is not None and not force and os.path.lexists(out):
        raise OutExists(f"{out} already exists; give --force to replace it")
    letter = stored_letter(store, claim_id, folder)
    content, unshown = letter_bytes(folder, format, letter)
    digest = hashlib.sha256(content).hexdigest()
    if out is None:
        entry = store.record_letter(claim_id, format, digest, letter.reference)
        return Issued(content, digest, entry, unshown)
    partial = out.with_name(f".{out.name}.partial")
    write_partial(partial, content)
    try:
        entry = store.record_letter(claim_id, format, digest, letter.reference)
        _into_place(partial, out, force, entry.audit_seq)
    finally:
        partial.unlink(missing_ok=True)
    return Issued(content, digest, entry, unshown)


def _into_place(partial: Path, out: Path, force: bool, audit_seq: int) -> None:
    """Move the written letter to `out`: replacing what is there only with `force` (a link at
    `out` is itself replaced, never followed); else as a new name, which fails if `out`
    appeared since it was checked."""
    if force:
        os.replace(partial, out)
        return
    try:
        os.link(partial, out, follow_symlinks=False)
    except FileExistsError as exc:
        raise OutExists(
            f"{out} appeared while the letter was written; the letter is recorded as audit "
            f"entry {audit_seq} but not written there: give --force to replace it"
        ) from exc


def write_partial(partial: Path, content: bytes) -> None:
    """Write `content` to `partial`, a file that must not exist yet (never written through a
    link put in its place); OutExists if it does."""
    try:
        write_new_file(partial, content, 0o644)
    except FileExistsError as exc:
        raise OutExists(
            f"{partial} already exists (a letter being written, or left by one that stopped); "
            "remove it and try again"
        ) from exc


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

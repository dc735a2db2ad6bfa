"""An issued policy's wording in force on a day, read, amended and indexed once.

The library's `in_force` comes here: the issued policy by number (issued.py), the form it is on
(with its kind corrections), the endorsements effective that day in the policy's order, each
endorsement's PDF read as a policy wording is (its text layer), its changes read
(changes.py) and corrected (change_corrections.py), then applied to the form (amend.py).

The result is written as an ordinary clause index (cache.py), so search runs over the wording in
force, under a digest of everything it depends on: the form's bytes and kind corrections, each
endorsement's bytes, corrections and effective date, and READER_VERSION. The amendments and the
unmatched changes go in a JSON file beside it. An endorsement's page texts are kept by its
hash too, so a warm open reads each PDF's bytes to hash them but starts no PDF reader.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import TypeAdapter, ValidationError

from claims_crew.errors import OutsidePolicies, PolicyError
from claims_crew.policy import amend as amend_module
from claims_crew.policy import (
    change_corrections,
    change_phrases,
    change_targets,
    changes,
    endorsement_pages,
    target_clauses,
)
from claims_crew.policy.amend import Amended, Amendment, EndorsementChanges, Unmatched, amend
from claims_crew.policy.cache import (
    INDEX_VERSION,
    StoredIndex,
    index_path,
    read_index,
    write_index,
)
from claims_crew.policy.change_corrections import ChangeCorrection, apply_change_corrections
from claims_crew.policy.changes import READING_VERSION, Change, read_changes
from claims_crew.policy.confined import inside
from claims_crew.policy.confirmations import reading_digest
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.issued import EndorsementEntry, EndorsementOnPolicy, IssuedPolicy
from claims_crew.policy.reading_deadline import ReadingDeadline
from claims_crew.policy.target_clauses import find_target

if TYPE_CHECKING:
    from claims_crew.policy.library import PolicyLibrary

# The reader's version (changes.READING_VERSION, the one place it is bumped), so wordings in force
# built by the old code are rebuilt, not trusted. The digest also holds a hash of the modules' own
# source (_code_digest), so an edit nobody remembered to bump rebuilds too.
READER_VERSION = str(READING_VERSION)
_READING_MODULES = (
    amend_module,
    changes,
    change_corrections,
    change_phrases,
    change_targets,
    endorsement_pages,
    target_clauses,
)

_AMENDMENTS = TypeAdapter(dict[str, Amendment])
_UNMATCHED = TypeAdapter(list[Unmatched])
_PAGES = TypeAdapter(list[str])


@dataclass(frozen=True, slots=True)
class _Endorsement:
    """One endorsement in force on the policy: as issued, its index entry, its file."""

    on_policy: EndorsementOnPolicy
    entry: EndorsementEntry
    path: Path
    data: bytes
    sha256: str


def default_day(issued: IssuedPolicy, today: date) -> date:
    """The day `policy tree NUMBER` shows when none is given: today within the policy's
    period, else the period's first day (a policy already expired, or not yet started)."""
    return today if issued.period.covers(today) else issued.period.start


def issued_policy(library: PolicyLibrary, policy_id: str, number: str) -> IssuedPolicy:
    """The issued policy `number`, which must be on the form `policy_id`."""
    issued = library.issued.get(number)
    if issued is None:
        known = ", ".join(sorted(library.issued)) or "none"
        raise PolicyError(
            "unknown_policy",
            f"no issued policy {number!r} in {library.root / 'issued'} (known: {known})",
        )
    if issued.form != policy_id:
        raise PolicyError(
            "wrong_form",
            f"policy {number} is issued on form {issued.form}, not on {policy_id}",
        )
    return issued


def endorsements_in_force(
    library: PolicyLibrary, issued: IssuedPolicy, on: date
) -> list[_Endorsement]:
    """The endorsements effective on `on`, in the policy's order, each checked and read."""
    out: list[_Endorsement] = []
    for on_policy in issued.in_force_on(on):
        name = on_policy.endorsement
        entry = library.endorsements.get(name)
        if entry is None:
            known = ", ".join(sorted(library.endorsements)) or "none"
            raise PolicyError(
                "unknown_endorsement",
                f"policy {issued.number} names endorsement {name!r}, which policies/index.yaml "
                f"does not list under `endorsements:` (known: {known})",
            )
        if entry.form != issued.form:
            raise PolicyError(
                "wrong_form",
                f"endorsement {name} amends form {entry.form}, but policy {issued.number} is "
                f"on form {issued.form}",
            )
        out.append(_read(library, on_policy, entry))
    return out


def _read(
    library: PolicyLibrary, on_policy: EndorsementOnPolicy, entry: EndorsementEntry
) -> _Endorsement:
    name = on_policy.endorsement
    try:
        path = inside(library.root, entry.file, "file")
    except OutsidePolicies as exc:
        raise PolicyError("outside_policies", f"endorsement {name}: {exc}") from exc
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PolicyError("not_found", f"endorsement {name}: {path}: no such file") from exc
    return _Endorsement(on_policy, entry, path, data, hashlib.sha256(data).hexdigest())


@dataclass(frozen=True, slots=True)
class ChangesRead:
    """An endorsement's changes as `policy changes` lists them, each with the id of the form's
    clause its target reaches (None where it reaches none)."""

    form: str  # the form it amends
    read: list[tuple[Change, str | None]]  # as the reader read them, numbered from 1
    corrected: list[tuple[Change, str | None]] | None  # as its corrections leave them, if any
    digest: str = ""  # the reading's digest, as a person confirms it (confirmations.py)
    pages: tuple[str, ...] = ()  # the endorsement's page texts, as read


def changes_of(library: PolicyLibrary, name: str) -> ChangesRead:
    """What the reader reads in endorsement `name` (numbered from 1, as corrections name them),
    and the changes as its entry's corrections leave them, matched on its form's clauses as
    amend.py matches them. Reading and matching share one deadline (reading_deadline.py)."""
    entry = library.endorsements.get(name)
    if entry is None:
        known = ", ".join(sorted(library.endorsements)) or "none"
        raise PolicyError("unknown_endorsement", f"no endorsement {name!r} (known: {known})")
    on_policy = EndorsementOnPolicy(endorsement=name, effective=date.min)
    return _listing(library, _read(library, on_policy, entry))


def changes_of_file(library: PolicyLibrary, path: Path, form: str) -> ChangesRead:
    """What the reader reads in an endorsement PDF that policies/index.yaml does not list yet,
    matched on form `form`'s clauses as a listed one's would be: so a team sees the reading
    before it adds the entry. It has no corrections yet."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PolicyError("not_found", f"endorsement {path}: no such file") from exc
    entry = EndorsementEntry(file=path.name, title=path.stem or path.name, form=form)
    on_policy = EndorsementOnPolicy(endorsement=path.name, effective=date.min)
    digest = hashlib.sha256(data).hexdigest()
    return _listing(library, _Endorsement(on_policy, entry, path, data, digest))


def _listing(library: PolicyLibrary, endorsement: _Endorsement) -> ChangesRead:
    name, entry = endorsement.on_policy.endorsement, endorsement.entry
    clauses = library.open(entry.form, unreviewed_ocr=True).clauses
    deadline = ReadingDeadline.start(f"endorsement {name}", library.timeout_s)
    pages = _endorsement_pages(library, endorsement, deadline)
    read = read_changes(pages, deadline.check)
    corrected = _corrected(name, read, entry.corrections) if entry.corrections else None

    def reached(changes: list[Change]) -> list[tuple[Change, str | None]]:
        out: list[tuple[Change, str | None]] = []
        for change in changes:
            deadline.check()
            found = find_target(change.target, clauses, change.within) if change.target else None
            out.append((change, found.id if found else None))
        return out

    return ChangesRead(
        entry.form,
        reached(read),
        None if corrected is None else reached(corrected),
        reading_digest(endorsement.sha256, read, corrected),
        tuple(pages),
    )


def unmatched_alone(library: PolicyLibrary, name: str) -> list[Unmatched]:
    """The changes of endorsement `name` whose target its form lacks, applied to the form on
    its own (config check reads the endorsements no issued policy carries this way)."""
    entry = library.endorsements[name]
    form = library.open(entry.form, unreviewed_ocr=True)
    deadline = ReadingDeadline.start(f"endorsement {name}", library.timeout_s)
    on_policy = EndorsementOnPolicy(endorsement=name, effective=date.min)
    changes = _changes(library, _read(library, on_policy, entry), deadline)
    return amend(form.clauses, [changes], deadline.check).unmatched


@functools.cache
def _code_digest() -> str:
    digest = hashlib.sha256()
    for module in _READING_MODULES:
        try:
            digest.update(Path(module.__file__ or module.__name__).read_bytes())
        except OSError:  # no source beside it (a frozen build): the version alone counts
            digest.update(module.__name__.encode())
    return digest.hexdigest()


def wording_digest(form: PolicyDocument, endorsements: list[_Endorsement]) -> str:
    """What the wording in force depends on, as one hash."""
    parts = {
        "reader": [READER_VERSION, _code_digest()],
        "form": form.sha256,
        "form_corrections": form.corrections_sha256,
        "endorsements": [
            [
                e.on_policy.endorsement,
                e.on_policy.effective.isoformat(),
                e.entry.title,
                e.sha256,
                [c.model_dump(mode="json") for c in e.entry.corrections],
            ]
            for e in endorsements
        ],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def open_in_force(library: PolicyLibrary, policy_id: str, number: str, on: date) -> PolicyDocument:
    """The issued policy as in force on `on` (see the module docstring)."""
    issued = issued_policy(library, policy_id, number)
    form = library.open(policy_id)
    # The endorsements' reading, from their bytes to the amended tree, has one deadline.
    deadline = ReadingDeadline.start(f"policy {number}'s endorsements", library.timeout_s)
    endorsements = endorsements_in_force(library, issued, on)
    if not endorsements:  # the form's own wording: its index serves as it is
        doc = PolicyDocument(form.path, form.sha256, _stored(form), form.index_path)
        doc.corrections_sha256 = form.corrections_sha256
        doc.form, doc.issued = form, issued
        return doc
    digest = wording_digest(form, endorsements)
    # Each reading's digest, every open: a confirmation is checked against the reading as it is.
    readings = {e.on_policy.endorsement: _reading(library, e, deadline) for e in endorsements}
    cache_dir = library.cache_dir
    target = index_path(cache_dir, digest)
    notes = _notes_path(cache_dir, digest)
    stored, amended = read_index(target), _read_notes(notes)
    if stored is None or amended is None:
        changes = [_changes(library, e, deadline) for e in endorsements]
        result = amend(form.clauses, changes, deadline.check)
        amended = (result.amendments, result.unmatched)
        _write_notes(notes, result)  # first, so an index on disk always has its notes
        write_index(
            cache_dir, digest, f"{number}@{on.isoformat()}", form.page_count, result.clauses
        )
        stored = read_index(target)
        if stored is None:  # pragma: no cover - only if the disk lies to us
            raise PolicyError("malformed", f"{number}: the index just written cannot be read")
    doc = PolicyDocument(form.path, digest, stored, target, form.corrections_sha256)
    doc.amendments, doc.unmatched = amended
    doc.form, doc.issued, doc.readings = form, issued, readings
    return doc


def _stored(doc: PolicyDocument) -> StoredIndex:
    return StoredIndex(doc.page_count, list(doc.clauses), doc.keys, doc.label_keys, doc.ocr)


def _changes(
    library: PolicyLibrary, endorsement: _Endorsement, deadline: ReadingDeadline
) -> EndorsementChanges:
    pages = _endorsement_pages(library, endorsement, deadline)
    on = endorsement.on_policy
    changes = read_changes(pages, deadline.check)
    if corrections := endorsement.entry.corrections:
        changes = _corrected(on.endorsement, changes, corrections)
    return EndorsementChanges(on.endorsement, endorsement.entry.title, on.effective, changes)


def _reading(library: PolicyLibrary, endorsement: _Endorsement, deadline: ReadingDeadline) -> str:
    """The digest of one endorsement's reading (confirmations.py): its pages as kept, read."""
    pages = _endorsement_pages(library, endorsement, deadline)
    read = read_changes(pages, deadline.check)
    corrections = endorsement.entry.corrections
    corrected = (
        _corrected(endorsement.on_policy.endorsement, read, corrections) if corrections else None
    )
    return reading_digest(endorsement.sha256, read, corrected)


def _corrected(
    name: str, changes: list[Change], corrections: tuple[ChangeCorrection, ...]
) -> list[Change]:
    try:
        return apply_change_corrections(changes, corrections)
    except ValueError as exc:
        raise PolicyError("bad_correction", f"endorsement {name}: corrections: {exc}") from exc


def _endorsement_pages(
    library: PolicyLibrary, endorsement: _Endorsement, deadline: ReadingDeadline
) -> list[str]:
    """The endorsement's page texts, read once per file content and kept by its hash; the
    reader child gets what is left of the deadline."""
    from claims_crew.policy.library import extract_pages  # the library imports this module

    kept = library.cache_dir / f"{endorsement.sha256}.pages.v{INDEX_VERSION}.json"
    try:
        return _PAGES.validate_json(kept.read_bytes())
    except (OSError, ValidationError):
        pass  # not read yet, or a damaged file: read the PDF again
    try:
        pages = extract_pages(endorsement.path, endorsement.data, deadline.left())
    except PolicyError as exc:
        name = endorsement.on_policy.endorsement
        raise PolicyError(exc.code, f"endorsement {name}: {exc.message}") from exc
    _write_atomically(kept, _PAGES.dump_json(pages))
    return pages


def _notes_path(cache_dir: Path, digest: str) -> Path:
    return cache_dir / f"{digest}.amendments.v{INDEX_VERSION}.json"


def _read_notes(path: Path) -> tuple[dict[str, Amendment], list[Unmatched]] | None:
    try:
        raw = json.loads(path.read_bytes())
        return (
            _AMENDMENTS.validate_python(raw["amendments"]),
            _UNMATCHED.validate_python(raw["unmatched"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # ValidationError is a ValueError: a damaged file is rebuilt, never trusted


def _write_notes(path: Path, result: Amended) -> None:
    notes = {
        "amendments": _AMENDMENTS.dump_python(result.amendments, mode="json"),
        "unmatched": _UNMATCHED.dump_python(result.unmatched, mode="json"),
    }
    _write_atomically(path, json.dumps(notes, ensure_ascii=False).encode())


def _write_atomically(path: Path, data: bytes) -> None:
    # As cache.py writes an index: under a name of its own, then renamed into place.
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)

"""The policies a project knows: `policies/index.yaml`, and opening a policy's indexed PDF.

`open_pdf` is the one road from a PDF file to a PolicyDocument: hash, reuse the on-disk index if
there is one for that hash, otherwise extract, segment and write it. The page texts come from
documents/: the text layer from its PDF reader child (documents/pdf/text.py), a scan's pages
from its renderer and OCR (scanned.py). A policy opened by its id gets its entry's kind
corrections on top (corrections.py), so every reader of a policy by id, the lookup tool and the
resolver alike, sees the same corrected kinds.
"""

from __future__ import annotations

import hashlib
import threading
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from claims_crew import settings
from claims_crew.documents.pdf.text import MIN_LETTERS_PER_PAGE, PdfTextError, read_text_layer
from claims_crew.errors import ConfigError, PolicyError
from claims_crew.policy.cache import StoredIndex, index_path, read_index, write_index
from claims_crew.policy.changes import READING_VERSION
from claims_crew.policy.confirmations import Confirmation, load_confirmations
from claims_crew.policy.corrections import Correction, apply_corrections, corrections_sha256
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.issued import EndorsementEntry, IssuedPolicy, load_issued
from claims_crew.policy.ocr_reading import OcrReading
from claims_crew.policy.schedule import Schedule
from claims_crew.policy.segment import segment
from claims_crew.settings.yaml_files import read_required

if TYPE_CHECKING:
    from claims_crew.policy.in_force import ChangesRead

# Endorsement readings for the whole process, keyed by what a reading depends on (see
# `PolicyLibrary.reading`). The review page opens a library per request, so that index.yaml and
# confirmations.yaml are read afresh; its list of endorsements would otherwise read every
# endorsement's PDF and reading again on each request. Bounded: a long-running server whose
# files keep changing keeps the newest.
_READINGS: dict[tuple[object, ...], ChangesRead] = {}
_READINGS_KEPT = 256
_READINGS_LOCK = threading.Lock()


class PolicyEntry(BaseModel):
    """One policy in policies/index.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(description="PDF file name, relative to the index file's folder.")
    product: str = Field(description="Product name as printed on the policy.")
    line: str = Field(description="Line of business, e.g. home, auto, travel.")
    in_force_from: date = Field(description="First day the policy is in force.")
    in_force_to: date | None = Field(None, description="Last day in force; none means open.")
    corrections: tuple[Correction, ...] = Field(
        (), description="Kinds the team corrects: by clause id, id prefix or heading title."
    )
    schedule: Schedule | None = Field(
        None, description="Currency, limits, sub-limits and deductibles, each with its clause."
    )
    ocr_reviewed: bool = Field(
        False,
        description="A scanned wording read by OCR has been checked against its pages by a "
        "person; until then claims on it are escalated (policy_unreadable: ocr_unreviewed).",
    )

    def in_force_on(self, day: date) -> bool:
        return self.in_force_from <= day and (self.in_force_to is None or day <= self.in_force_to)


class PolicyIndexFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policies: dict[str, PolicyEntry]
    endorsements: dict[str, EndorsementEntry] = Field(
        default_factory=dict, description="Endorsement forms by form number (policy/issued.py)."
    )


def load_index(index_file: Path) -> dict[str, PolicyEntry]:
    """The policy forms of policies/index.yaml."""
    return load_index_file(index_file).policies


def load_index_file(index_file: Path) -> PolicyIndexFile:
    """Read and validate policies/index.yaml; a bad key names the file and the key."""
    checked = read_required(index_file, "policy index not found").check(PolicyIndexFile)
    if checked.value is None:
        problems = "; ".join(e.worded("index") for e in checked.errors)
        raise ConfigError(f"{index_file}: {problems}") from checked.failure
    return checked.value


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def open_pdf(path: Path, cache_dir: Path, timeout_s: float | None = None) -> PolicyDocument:
    """The clause index of one PDF, built on first use and reused while the file is unchanged."""
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise PolicyError("not_found", f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise PolicyError("not_found", f"{path}: is a folder, not a PDF") from exc
    digest = sha256_of(data)
    target = index_path(cache_dir, digest)
    cached = read_index(target)
    if cached is None:
        pages, ocr = _page_texts(path, data, timeout_s)
        write_index(cache_dir, digest, path.name, len(pages), segment(pages), ocr)
        cached = read_index(target)
        if cached is None:  # pragma: no cover - only if the disk lies to us
            raise PolicyError("malformed", f"{path}: the index just written cannot be read")
    return PolicyDocument(path, digest, cached, target)


def extract_pages(path: Path, data: bytes, timeout_s: float | None = None) -> list[str]:
    """Text of every page of the PDF at `path` (whose bytes are `data`), first page first.

    Raises PolicyError with code malformed, encrypted, no_text_layer or timeout.
    """
    try:
        pages = read_text_layer(path, data, timeout_s)
    except PdfTextError as exc:
        raise PolicyError(exc.code, str(exc)) from exc
    letters = sum(ch.isalpha() for text in pages for ch in text)
    if letters < MIN_LETTERS_PER_PAGE * len(pages):
        raise PolicyError(
            "no_text_layer",
            f"{path.name}: no text layer ({letters} letters on {len(pages)} pages); "
            "it looks scanned and needs OCR before it can be indexed",
        )
    return pages


def _page_texts(
    path: Path, data: bytes, timeout_s: float | None
) -> tuple[list[str], OcrReading | None]:
    """The PDF's text layer; where it has none (a scan), what OCR reads on its pages."""
    try:
        return extract_pages(path, data, timeout_s), None
    except PolicyError as exc:
        if exc.code != "no_text_layer":
            raise
    from claims_crew.policy.scanned import ocr_pages  # Tesseract's binding, only for a scan

    return ocr_pages(path, data)


class PolicyLibrary:
    """Policies by id (from index.yaml) or by path, each opened once per library instance."""

    def __init__(
        self,
        root: Path | None = None,
        cache_dir: Path | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self.root = root if root is not None else settings.policies_dir()
        self.cache_dir = cache_dir if cache_dir is not None else settings.policy_cache_dir()
        self.timeout_s = timeout_s
        index_file = self.root / "index.yaml"
        index = load_index_file(index_file) if index_file.exists() else PolicyIndexFile(policies={})
        self.entries: dict[str, PolicyEntry] = index.policies
        self.endorsements: dict[str, EndorsementEntry] = index.endorsements
        self.issued: dict[str, IssuedPolicy] = load_issued(self.root)
        # The endorsement readings a person confirmed (confirmations.py), as the library opened.
        self.confirmations: dict[str, Confirmation] = load_confirmations(self.root)
        self._open: dict[tuple[int, int, int, int], PolicyDocument] = {}
        self._corrected: dict[tuple[str, str], PolicyDocument] = {}
        self._in_force: dict[tuple[object, ...], PolicyDocument] = {}

    def path_of(self, file_or_id: str) -> Path:
        """A policy id from the index, or a path to a PDF."""
        if entry := self.entries.get(file_or_id):
            return self.root / entry.file
        candidate = Path(file_or_id)
        if candidate.suffix.lower() == ".pdf" or candidate.exists():
            return candidate
        known = ", ".join(sorted(self.entries)) or "none"
        raise PolicyError(
            "unknown_policy", f"{file_or_id!r} is neither a policy id (known: {known}) nor a file"
        )

    def for_claim(self, policy_id: str, policy_number: str | None, on: date) -> PolicyDocument:
        """The wording a claim is decided on: its issued policy's in force on `on` (the date of
        loss) when it names one, else the form `policy_id` alone."""
        if policy_number is None:
            return self.open(policy_id)
        return self.in_force(policy_id, policy_number, on)

    def in_force(self, policy_id: str, number: str, on: date) -> PolicyDocument:
        """The issued policy `number` (on form `policy_id`) as in force on `on`: the form with
        every endorsement effective that day applied in order (policy/amend.py). Its
        `amendments`, `form`, `issued` and `unmatched` say what changed and from where.

        Raises PolicyError: unknown_policy (no such number), wrong_form (the policy, or an
        endorsement on it, is on another form), unknown_endorsement, outside_policies (an
        endorsement's file leads out of the policies folder), or an endorsement PDF's own
        reading error (not_found, malformed, no_text_layer, ...).
        """
        from claims_crew.policy.in_force import open_in_force  # it imports this module

        issued = self.issued.get(number)
        in_force = issued.in_force_on(on) if issued is not None else ()
        form = self.entries.get(policy_id)
        files = [form, *(self.endorsements.get(e.endorsement) for e in in_force)]
        # The same endorsements on two days are one wording; an edited file is a new one.
        key = (policy_id, number, *in_force, *(_stat(self.root / f.file) for f in files if f))
        if (doc := self._in_force.get(key)) is None:
            doc = open_in_force(self, policy_id, number, on)
            self._in_force[key] = doc
        return doc

    def reading(self, name: str) -> ChangesRead:
        """Endorsement `name`'s reading (in_force.changes_of), read once per process while what
        it depends on is unchanged: the endorsement's PDF and its form's (size and mtime, as
        `_open_file` tells an edit), the entry with its corrections, the form's kind
        corrections (a target's kind may pick its clause) and the reader's version. An edit to
        any of them is read afresh; an error is never kept."""
        from claims_crew.policy.in_force import changes_of  # it imports this module

        key = self._reading_key(name)
        if key is None:  # an unknown name or a missing file: changes_of says which
            return changes_of(self, name)
        with _READINGS_LOCK:
            found = _READINGS.get(key)
        if found is None:
            found = changes_of(self, name)
            with _READINGS_LOCK:
                while len(_READINGS) >= _READINGS_KEPT:
                    del _READINGS[next(iter(_READINGS))]  # the oldest kept
                _READINGS[key] = found
        return found

    def _reading_key(self, name: str) -> tuple[object, ...] | None:
        entry = self.endorsements.get(name)
        form = self.entries.get(entry.form) if entry is not None else None
        if entry is None or form is None:
            return None
        files = (self.root / entry.file, self.root / form.file)
        stamps = [(p.resolve(), stamp) for p in files if (stamp := _stat(p)) is not None]
        if len(stamps) < len(files):
            return None
        return (READING_VERSION, self.root.resolve(), name, entry, form.corrections, *stamps)

    def open(
        self, file_or_id: str, corrected: bool = True, unreviewed_ocr: bool = False
    ) -> PolicyDocument:
        """The policy's clause tree; by id, with the entry's kind corrections applied unless
        `corrected` is false (config check compares them with the tree as segmented).

        A wording read by OCR is given only once its entry says `ocr_reviewed: true`, else a
        PolicyError `ocr_unreviewed`: claims must not stand on text nobody compared with the
        page. `unreviewed_ocr` lets a person's own commands (`policy tree`) see it anyway.
        """
        doc = self._open_file(file_or_id)
        entry = self.entries.get(file_or_id)
        if doc.ocr is not None and not unreviewed_ocr and not (entry and entry.ocr_reviewed):
            raise PolicyError(
                "ocr_unreviewed",
                f"{file_or_id}: the wording is a scan read by OCR and is not yet marked "
                f"reviewed; check `claims-crew policy tree {file_or_id}` against the pages, then "
                "set `ocr_reviewed: true` on its entry in policies/index.yaml",
            )
        if not corrected or entry is None or not entry.corrections:
            return doc
        key = (file_or_id, doc.sha256)
        if (fixed := self._corrected.get(key)) is None:
            fixed = with_corrections(doc, entry.corrections)
            self._corrected[key] = fixed
        return fixed

    def _open_file(self, file_or_id: str) -> PolicyDocument:
        path = self.path_of(file_or_id)
        try:
            stat = path.stat()
        except OSError as exc:
            raise PolicyError("not_found", f"{path}: no such file") from exc
        # The file's identity (device and inode, whatever path or link names it) and its size
        # and mtime catch an edit or a replacement between calls without re-hashing on every
        # lookup, and without resolving the path each time (two thirds of a warm open).
        memo_key = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
        if (doc := self._open.get(memo_key)) is None:
            doc = open_pdf(path, self.cache_dir, self.timeout_s)
            self._open[memo_key] = doc
        return doc


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def with_corrections(doc: PolicyDocument, corrections: tuple[Correction, ...]) -> PolicyDocument:
    """The same policy with its clauses' kinds corrected, and the corrections' hash on it."""
    stored = StoredIndex(
        doc.page_count,
        apply_corrections(doc.clauses, corrections),
        doc.keys,
        doc.label_keys,
        doc.ocr,
    )
    return PolicyDocument(
        doc.path, doc.sha256, stored, doc.index_path, corrections_sha256(corrections)
    )

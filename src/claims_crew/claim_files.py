"""Reading claim files from the inbox: JSON or YAML, validated, with their text attachments.

An inbox is outside input: one bad file must not stop a batch, and no file may make a run read
what is not in the inbox. So a file is checked before it is parsed:
- it is a regular file, and a link only to a file inside the inbox: a FIFO or a device is never
  opened (a FIFO would block the run until something writes to it);
- it is at most MAX_CLAIM_BYTES, and only that much plus one byte is ever read; an attachment is
  at most MAX_ATTACHMENT_BYTES, and all of a claim's attachments MAX_ATTACHMENTS_BYTES together
  (documents/limits.py caps their pages, pixels and reading time too);
- it is nested at most MAX_NESTING deep, checked before the YAML composer (which recurses) runs;
- no mapping names a key twice (`"claim_id": "U-24", "claim_id": "U-24b"`): both parsers would
  keep the last value without a word, so such a file is malformed.
Whatever is wrong is a ClaimFileError naming the file, with a code saying why; the batch reports
it and goes on with the other files. Attachments (text, PDF, scans, photos) are read into their
text of record by documents/read.py; one whose scanned pages need an OCR engine that is not
installed is kept with what could be read (needs_ocr), and its claim goes on. Files that share
a claim id are refused together (`load_claims`).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from claims_crew.documents.kept import keep_original
from claims_crew.documents.limits import (
    MAX_CLAIM_ATTACHMENT_BYTES,
    MAX_DOCUMENT_BYTES,
    AttachmentError,
    ClaimBudget,
)
from claims_crew.documents.read import read_document
from claims_crew.documents.record import AttachmentRecord, PageText
from claims_crew.errors import ClaimFileError, validation_problems
from claims_crew.models import ClaimFile
from claims_crew.settings.yaml_files import nests_deeper_than, plain_data

CLAIM_SUFFIXES = (".json", ".yaml", ".yml")
# A claim file is a page of fields; a megabyte is far beyond one, and far beyond what a model
# should be sent in one request.
MAX_CLAIM_BYTES = 1 << 20
MAX_ATTACHMENT_BYTES = MAX_DOCUMENT_BYTES
MAX_ATTACHMENTS_BYTES = MAX_CLAIM_ATTACHMENT_BYTES
# What the intake agent is shown of each attachment.
MAX_ATTACHMENT_CHARS = 20_000
# A claim file is a mapping with one list in it (attachments): two levels. The cap keeps the
# parsers far from Python's recursion limit, whatever thread they run in.
MAX_NESTING = 32

# Open without blocking (a FIFO that slipped past the check opens at once instead of waiting for a
# writer) and without following a link (the path opened is already resolved).
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


@dataclass(frozen=True, slots=True)
class LoadedClaim:
    """A validated claim file, the bytes it was read from, and its attachments' text of record."""

    path: Path
    claim: ClaimFile
    raw: bytes
    documents: dict[str, AttachmentRecord]
    # Attachments whose file no longer matches the text of record kept for this claim file.
    changed: tuple[str, ...] = ()
    # The SHA-256 of `raw`: the claim's identity in the store and the audit trail, computed once.
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha256", hashlib.sha256(self.raw).hexdigest())

    @property
    def attachments(self) -> dict[str, str]:
        """Each attachment's text as the intake agent is shown it, by file name."""
        return {name: doc.text[:MAX_ATTACHMENT_CHARS] for name, doc in self.documents.items()}

    def pages(self) -> dict[str, list[PageText]]:
        """The pages of each PDF and image attachment, which a fact's quote cites."""
        return {n: d.pages for n, d in self.documents.items() if d.kind != "text"}

    def notes(self) -> list[tuple[str, str, str]]:
        """(attachment, code, message) for each attachment read only in part (needs_ocr) or
        changed since its text of record was kept (changed)."""
        found: list[tuple[str, str, str]] = [
            (d.name, d.problem, d.message) for d in self.documents.values() if d.problem
        ]
        found += [
            (name, "changed", "the file changed after intake; its text of record is kept")
            for name in self.changed
        ]
        return found

    def as_text(self) -> str:
        """The claim as the intake agent reads it: its fields but `sample`, then attachments."""
        body = self.claim.model_dump(mode="json", exclude={"attachments", "sample"})
        parts = [json.dumps(body, indent=2, ensure_ascii=False)]
        for name, text in self.attachments.items():
            parts.append(f"--- attachment {name} ---\n{text}")
        return "\n\n".join(parts)


def inbox_files(inbox: Path) -> list[Path]:
    """Claim files in an inbox folder, in name order."""
    return sorted(p for p in inbox.iterdir() if p.suffix.lower() in CLAIM_SUFFIXES)


def _read_inside(claim: Path, path: Path, limit: int, what: str) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes in the claim file's folder.

    An error names the claim file and `what` ("claim file", "attachment 'x.txt'"). A link is
    judged by where it points. The file is checked before it is opened and again on the open
    descriptor, so a file swapped in between is still refused; at most `limit` + 1 bytes are read.
    """
    try:
        target = path.resolve(strict=True)
        inside = claim.parent.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of links
        raise ClaimFileError(
            f"{claim}: {what} cannot be read: {_why(exc)}", code="unreadable"
        ) from exc
    if inside not in target.parents:
        raise ClaimFileError(
            f"{claim}: {what} links to {target}, outside {inside}; nothing outside is read",
            code="outside_inbox",
        )
    try:
        _check_regular(claim, os.stat(target), limit, what)
        fd = os.open(target, _OPEN_FLAGS)
        with os.fdopen(fd, "rb") as handle:
            _check_regular(claim, os.fstat(handle.fileno()), limit, what)
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ClaimFileError(
            f"{claim}: {what} cannot be read: {_why(exc)}", code="unreadable"
        ) from exc
    if len(data) > limit:  # it grew after the check
        raise _too_large(claim, what, None, limit)
    return data


def _check_regular(path: Path, info: os.stat_result, limit: int, what: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "not a regular file"
        raise ClaimFileError(f"{path}: {what} is {kind}; it is not opened", code="not_a_file")
    if info.st_size > limit:
        raise _too_large(path, what, info.st_size, limit)


def _too_large(path: Path, what: str, size: int | None, limit: int) -> ClaimFileError:
    """`size` None: the file grew past the cap while it was read."""
    measured = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
    return ClaimFileError(
        f"{path}: {what} is {measured}; the cap is {limit:,} bytes", code="too_large"
    )


def _why(exc: BaseException) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _too_deep(path: Path) -> ClaimFileError:
    return ClaimFileError(
        f"{path}: nested more than {MAX_NESTING} levels deep; a claim file needs two",
        code="too_deep",
    )


def _nesting_exceeds(data: object, limit: int) -> bool:
    """Whether parsed JSON nests mappings and lists more than `limit` deep (no recursion)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children: Iterable[object]
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class _DuplicateKey(Exception):
    """A mapping that names one key twice: the parsers would keep the last value silently."""

    def __init__(self, key: object, line: int | None = None) -> None:
        super().__init__(key)
        self.key = key
        self.line = line


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict, refusing a key given twice."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKey(key)
        found[key] = value
    return found


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that names a key twice (PyYAML keeps the last).
    A merge key (`<<`) may still override, as YAML intends."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                again = key in seen
            except TypeError:  # an unhashable key, which the safe loader refuses itself
                continue
            if again:
                raise _DuplicateKey(key, key_node.start_mark.line + 1)
            seen.add(key)
        return super().construct_mapping(node, deep)


def _parse(path: Path, raw: bytes) -> object:
    is_json = path.suffix.lower() == ".json"
    try:
        if is_json:
            data = json.loads(raw, object_pairs_hook=_unique_keys)
            if _nesting_exceeds(data, MAX_NESTING):
                raise _too_deep(path)
            return data
        if nests_deeper_than(raw, MAX_NESTING):
            raise _too_deep(path)
        return plain_data(raw, _UniqueKeyLoader)  # a SafeLoader: no arbitrary objects
    except RecursionError as exc:  # the checks above keep parsing shallow; this is the backstop
        raise _too_deep(path) from exc
    except _DuplicateKey as exc:
        where = f" (line {exc.line})" if exc.line is not None else ""
        raise ClaimFileError(
            f"{path}: the key {exc.key!r} is given more than once in one mapping{where}; "
            "which value is meant cannot be told",
            code="malformed",
        ) from exc
    except (ValueError, yaml.YAMLError) as exc:
        kind = "JSON" if is_json else "YAML"
        raise ClaimFileError(f"{path}: not valid {kind}: {exc}", code="malformed") from exc


def named_attachments(name: str, raw: bytes) -> list[str]:
    """The attachments a claim file's bytes name, read as load_claim reads them; none for a
    file that does not parse, which load_claim refuses, saying why."""
    try:
        data = _parse(Path(name), raw)
    except ClaimFileError:
        return []
    named = data.get("attachments") if isinstance(data, dict) else None
    return [n for n in named if isinstance(n, str)] if isinstance(named, list) else []


# The text of record already kept for a claim file version (claim id, sha256), if any.
KeptRecords = Callable[[str, str], dict[str, AttachmentRecord] | None]


def load_claim(
    path: Path,
    seconds: float | None = None,
    kept: KeptRecords | None = None,
    originals: Path | None = None,
    taken: Mapping[str, AttachmentRecord] | None = None,
) -> LoadedClaim:
    """Read and validate one claim file; a problem names the file and every bad field.

    `seconds` bounds the reading of its attachments (OCR mostly). Where `kept` has a text of
    record for this very claim file, an attachment is not read again: a file that changed since
    is reported (LoadedClaim.changed), never silently re-read. `originals`: a folder where each
    attachment's bytes are kept by their hash (documents/kept.py), for the review page and for
    an appeal. `taken`: attachments whose text of record is already known (a reopened claim's
    originals, as the store kept them): their files are never opened.
    """
    raw = _read_inside(path, path, MAX_CLAIM_BYTES, "claim file")
    data = _parse(path, raw)
    if not isinstance(data, dict):
        raise ClaimFileError(f"{path}: expected a mapping of claim fields", code="malformed")
    try:
        claim = ClaimFile.model_validate(data)
    except ValidationError as exc:
        missing = [str(e["loc"][0]) for e in exc.errors() if e["type"] == "missing"]
        problems = "; ".join(validation_problems(exc, "file"))
        raise ClaimFileError(f"{path}: {problems}", missing=missing) from exc
    before = kept(claim.claim_id, hashlib.sha256(raw).hexdigest()) if kept else None
    documents: dict[str, AttachmentRecord] = {}
    changed: list[str] = []
    taken = taken or {}
    files: dict[str, bytes] = {}
    known = sum(taken[n].size for n in claim.attachments if n in taken)
    for name in claim.attachments:  # every file's size first: no OCR spent on a claim refused
        if name in taken:
            continue
        files[name] = _attachment_bytes(path, name)
        if known + sum(map(len, files.values())) > MAX_ATTACHMENTS_BYTES:
            raise ClaimFileError(
                f"{path}: its attachments are over {MAX_ATTACHMENTS_BYTES:,} bytes together",
                code="too_large",
            )
    budget = ClaimBudget(seconds)
    for name in claim.attachments:
        if name in taken:
            documents.update(carried_with(taken, name))
    for name, data_bytes in files.items():
        if before is not None and name in before:
            documents.update(carried_with(before, name))
            if before[name].sha256 not in ("", hashlib.sha256(data_bytes).hexdigest()):
                changed.append(name)
            continue
        try:
            # An e-mail gives its own record, then one for each file it carries.
            records = read_document(name, data_bytes, budget)
        except AttachmentError as exc:
            raise ClaimFileError(f"{path}: attachment {exc}", code=exc.code) from exc
        for record, original in records:
            if originals is not None:
                record = record.model_copy(update={"kept_at": keep_original(originals, original)})
            documents[record.name] = record
    # The claim file's order, each e-mail followed by what it carries.
    ordered = {n: documents[n] for name in claim.attachments for n in carried_with(documents, name)}
    return LoadedClaim(path, claim, raw, ordered, tuple(changed))


def carried_with(records: Mapping[str, AttachmentRecord], name: str) -> dict[str, AttachmentRecord]:
    """The record of attachment `name` and those of the files it carries ("name/…"), in order."""
    return {n: r for n, r in records.items() if n == name or n.startswith(name + "/")}


def _attachment_bytes(path: Path, name: str) -> bytes:
    what = f"attachment {name!r}"
    target = path.parent / name
    # By name first ("../x", "/etc/x"), before anything outside is looked at; a link is
    # judged where it points, in _read_inside.
    folder = Path(os.path.abspath(path.parent))
    if folder not in Path(os.path.abspath(target)).parents:
        raise ClaimFileError(f"{path}: {what} is outside the claim's folder", code="outside_inbox")
    return _read_inside(path, target, MAX_ATTACHMENT_BYTES, what)


def load_claims(
    paths: Sequence[Path],
    seconds: float | None = None,
    kept: KeptRecords | None = None,
    originals: Path | None = None,
) -> dict[Path, LoadedClaim | ClaimFileError]:
    """Each file read once: its claim, or why it cannot be reviewed.

    Each file is read as `load_claim` reads it. Files that share a claim id are all refused
    (code duplicate_id), each naming the others. The
    store decides a claim id once and only flags a later file with that id, so reviewing the
    first by name would settle the claim on a version nobody chose. Neither is reviewed; once
    one file is left with that id, the next run reviews it.
    """
    found: dict[Path, LoadedClaim | ClaimFileError] = {}
    by_id: dict[str, list[Path]] = defaultdict(list)
    for path in paths:
        try:
            loaded = load_claim(path, seconds, kept, originals)
        except ClaimFileError as exc:
            found[path] = exc
            continue
        found[path] = loaded
        by_id[loaded.claim.claim_id].append(path)
    for claim_id, same in by_id.items():
        for path in same if len(same) > 1 else ():
            others = ", ".join(p.name for p in same if p != path)
            found[path] = duplicate_id(
                path,
                claim_id,
                f"is also in {others}; none of them is reviewed until only one file has it",
            )
    return found


def duplicate_id(path: Path, claim_id: str, why: str) -> ClaimFileError:
    """A file refused because another file has its claim id (`why` says which and what
    becomes of them): another file of the inbox, or a different file already queued."""
    return ClaimFileError(f"{path}: claim id {claim_id} {why}", code="duplicate_id")

"""A claim submitted to the API: its files written to a folder of their own, then taken in by
`ingest`, exactly as `claims-crew ingest` takes a file from an inbox.

The folder is CLAIMS_CREW_HOME/api/<digest>, named by the SHA-256 of what was sent (the claim
file's name and bytes, each attachment's), so the same submit twice is the same folder. It is
written under another name first and renamed into place whole, so ingest never reads half of
it. A claim ingest refuses leaves nothing: its folder goes (when this submit made it), and
ingest keeps no row of a refused file. A claim taken in keeps its folder: the store names the
claim file by its path there, and `review stale` hashes that file to see whether it changed.

Each file name is checked before anything is written: a plain relative name of a file, no
`..`, no part of dots only (`.`, `./.`), no control characters, as a claim file names its
attachments.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from fastapi import UploadFile

from claims_crew.api.problems import ApiProblem
from claims_crew.claim_files import CLAIM_SUFFIXES, named_attachments
from claims_crew.documents.kept import write_new_file
from claims_crew.run.ingest import Ingested, ingest
from claims_crew.settings import home
from claims_crew.store import Store

# Deep enough for any claim's own folders of attachments, and no deeper.
MAX_NAME_PARTS = 8
MAX_NAME_CHARS = 255


@dataclass(frozen=True)
class Upload:
    """One file of a submit: its name as the claim file names it, and its bytes."""

    name: str
    data: bytes


def read_upload(upload: UploadFile, cap: int, name: str) -> Upload:
    """An uploaded part's bytes under `name`, reading at most one byte past `cap`: one over it
    is refused (422 too_large) without the rest being read."""
    data = upload.file.read(cap + 1)
    if len(data) > cap:
        raise ApiProblem(422, "too_large", f"{name} is over {cap:,} bytes")
    return Upload(name, data)


def api_dir() -> Path:
    return home() / "api"


def safe_name(name: str | None, what: str) -> str:
    """`name` as a relative path inside the claim's folder; 422 for one that is not."""
    if not name:
        raise ApiProblem(422, "invalid", f"{what} has no file name")
    # PurePosixPath drops "." parts: "." and "./." have none left, and would name the claim's
    # folder itself. Every part made only of dots ("..", "...") is refused as well: no file.
    parts = PurePosixPath(name).parts
    bad = (
        not parts
        or len(name) > MAX_NAME_CHARS
        or len(parts) > MAX_NAME_PARTS
        or name.startswith("/")
        or "\\" in name
        or any(not part.strip(".") for part in parts)
        or any(ord(ch) < 32 or ord(ch) == 127 for ch in name)
    )
    if bad:
        raise ApiProblem(
            422,
            "invalid",
            f"{what} is named {name!r}: a file name is a plain relative path to a file, "
            "without '..', a part of dots only, a backslash or control characters",
        )
    return "/".join(parts)


def claim_name(name: str | None) -> str:
    """The claim file's name: the part's own, which says JSON or YAML by its suffix."""
    named = safe_name(name or "claim.json", "the claim part")
    if PurePosixPath(named).suffix.lower() not in CLAIM_SUFFIXES:
        raise ApiProblem(
            422,
            "invalid",
            f"the claim part is named {named!r}: a claim file ends in " + ", ".join(CLAIM_SUFFIXES),
        )
    return named


def request_sha256(claim: Upload, attachments: Sequence[Upload]) -> str:
    """The SHA-256 of what a submit sends, whatever multipart framing carried it."""
    digest = hashlib.sha256()
    for upload in (claim, *attachments):
        name = upload.name.encode("utf-8")
        digest.update(len(name).to_bytes(4, "big") + name)
        digest.update(len(upload.data).to_bytes(8, "big"))
        digest.update(hashlib.sha256(upload.data).digest())
    return digest.hexdigest()


def _write_folder(claim: Upload, attachments: Sequence[Upload], digest: str) -> tuple[Path, bool]:
    """The submit's folder, and whether this call made it (False: the same submit did)."""
    names = [claim.name, *(a.name for a in attachments)]
    if len(set(names)) < len(names):
        raise ApiProblem(422, "invalid", "two parts have the same file name")
    root = api_dir()
    root.mkdir(parents=True, exist_ok=True)
    final = root / digest[:32]
    if final.is_dir():
        return final, False
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    try:
        for upload in (claim, *attachments):
            path = staging / upload.name
            path.parent.mkdir(parents=True, exist_ok=True)
            write_new_file(path, upload.data)
        os.rename(staging, final)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if final.is_dir():  # the same submit, at the same moment
            return final, False
        raise
    return final, True


def _every_part_sent(claim: Upload, attachments: Sequence[Upload]) -> None:
    """422 naming each attachment the claim file names that no part carries: the client left it
    out, which ingest, finding no such file in the folder, would report as a file it cannot read
    ("No such file or directory"), as if the server had lost it."""
    sent = {a.name for a in attachments}
    named = [(n, _normal(n)) for n in named_attachments(claim.name, claim.data)]
    missing = [n for n, normal in named if normal is not None and normal not in sent]
    if missing:
        parts = " and ".join(missing)
        raise ApiProblem(
            422,
            "invalid",
            f"{claim.name} names {parts} but no part carries "
            f"{'it' if len(missing) == 1 else 'them'}: send {parts} as "
            f"{'an `attachments` part' if len(missing) == 1 else '`attachments` parts'}",
        )


def _normal(name: str) -> str | None:
    """A claim file's attachment name as safe_name writes a part's ("./a.txt" is "a.txt");
    None for a name no part could carry ("../a.txt"), which ingest refuses, saying why."""
    try:
        return safe_name(name, "an attachment")
    except ApiProblem:
        return None


def submit(
    store: Store,
    claim: Upload,
    attachments: Sequence[Upload],
    digest: str,
    seconds: float | None,
) -> Ingested:
    """Take the claim in as `ingest` does, from the folder named by `digest` (what
    request_sha256 gives for these files); a refusal is a problem with ingest's code and
    message (409 for duplicate_id, else 422), and nothing of the claim is kept."""
    _every_part_sent(claim, attachments)
    folder, made = _write_folder(claim, attachments, digest)
    try:
        (result,) = ingest([folder / claim.name], store, seconds)
    except BaseException:
        if made:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    if result.refused:
        if made:
            shutil.rmtree(folder, ignore_errors=True)
        # The message names the file as the client sent it, not where this server keeps it.
        message = (result.error or "refused").replace(f"{folder}{os.sep}", "")
        code = result.code or "invalid"
        raise ApiProblem(409 if code == "duplicate_id" else 422, code, message)
    return result

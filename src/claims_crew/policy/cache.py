"""The on-disk policy index: one SQLite file per PDF, named by the PDF's SHA-256.

An unchanged file is parsed once; an edited one has a new hash and is indexed afresh. The file
is written under a temporary name and renamed into place, so a crash or a failed parse never
leaves a half-written index that a later run would trust.

Each file holds the clauses twice, for two readers: an FTS5 table that search ranks, and one
marshalled snapshot of every clause with its lookup keys, which a warm load reads in a single
call. Reading thousands of rows one value at a time was most of a warm load on large policies.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sqlite3
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from claims_crew.policy.ids import clause_key
from claims_crew.policy.ocr_reading import OcrReading
from claims_crew.policy.segment import Clause

# Bump when the segmenter or the schema changes, so old indexes are rebuilt, not misread.
INDEX_VERSION = 7
# marshal's format belongs to one Python version; another version rebuilds instead of guessing.
_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE snapshot (data BLOB NOT NULL);
CREATE TABLE clauses (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, title TEXT, text TEXT);
CREATE VIRTUAL TABLE clause_fts USING fts5(
    title, text, content='clauses', content_rowid='seq', tokenize='porter unicode61'
);
"""


@dataclass(frozen=True, slots=True)
class StoredIndex:
    """What an index file holds: the page count, the clauses and their lookup keys."""

    page_count: int
    clauses: list[Clause]
    keys: list[str]
    label_keys: list[str]
    # Set when the wording was read by OCR (scanned.py); None for a text layer.
    ocr: OcrReading | None = None


def index_path(cache_dir: Path, sha256: str) -> Path:
    return cache_dir / f"{sha256}.v{INDEX_VERSION}.sqlite"


def write_index(
    cache_dir: Path,
    sha256: str,
    source: str,
    page_count: int,
    clauses: Sequence[Clause],
    ocr: OcrReading | None = None,
) -> Path:
    """Write the index for one PDF atomically and return its path."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    final = index_path(cache_dir, sha256)
    # Unique per process and thread: claims of one batch may build the same index at once.
    tmp = final.with_name(f".{final.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    snapshot = marshal.dumps(
        (
            [tuple(c) for c in clauses],
            [clause_key(c.id) for c in clauses],
            [clause_key(c.label) if c.label else "" for c in clauses],
        )
    )
    try:
        with contextlib.closing(sqlite3.connect(tmp)) as conn:
            conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("sha256", sha256),
                    ("source", source),
                    ("pages", str(page_count)),
                    ("version", str(INDEX_VERSION)),
                    ("python", _PYTHON),
                    *([("ocr", ocr.model_dump_json())] if ocr is not None else []),
                ],
            )
            conn.execute("INSERT INTO snapshot VALUES (?)", (snapshot,))
            conn.executemany(
                "INSERT INTO clauses VALUES (?, ?, ?, ?)",
                [(seq, c.id, c.title, c.text) for seq, c in enumerate(clauses)],
            )
            conn.execute(
                "INSERT INTO clause_fts(rowid, title, text) SELECT seq, title, text FROM clauses"
            )
            conn.commit()
        # No fsync: a file cut short by a power loss fails read_index's checks and is rebuilt.
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return final


def _open_read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def read_only(path: Path) -> contextlib.closing[sqlite3.Connection]:
    """An index file opened read only, closed when the block ends."""
    return contextlib.closing(_open_read_only(path))


class _Readers(threading.local):
    """This thread's open index connections, by path, with the identity of the file each read."""

    def __init__(self) -> None:
        self.by_path: dict[Path, tuple[tuple[int, int], sqlite3.Connection]] = {}


_READERS = _Readers()


def _forget_readers() -> None:
    # In a forked child only the thread that forked goes on: its parent's connections are left
    # unused, as the store leaves its pool's (store/base.py).
    _READERS.by_path = {}


if hasattr(os, "register_at_fork"):  # POSIX only; elsewhere no process is forked
    os.register_at_fork(after_in_child=_forget_readers)


def reader(path: Path) -> sqlite3.Connection:
    """This thread's read-only connection to the index at `path`, opened on first use and kept.

    For the queries made claim after claim (search, the exclusion fit): a new connection parses
    the schema again before its first query, two thirds of a search on the sample home policy
    (0.73-0.87 ms fresh against 0.28 ms on a kept connection). The index at a path is only ever
    replaced whole (written aside and renamed, or rebuilt after damage), so a connection is kept
    while the path names the same file (device and inode) and a replaced file gets a new one.
    A connection belongs to one thread (sqlite3's default check) and one process: a forked
    child, which must not use its parent's SQLite connections, forgets them and opens its own."""
    try:
        stat = path.stat()
    except OSError:  # sqlite3 says what is missing, as a query on a new connection would
        return _open_read_only(path)
    identity = (stat.st_dev, stat.st_ino)
    kept = _READERS.by_path.get(path)
    if kept is not None and kept[0] == identity:
        return kept[1]
    conn = _open_read_only(path)
    _READERS.by_path[path] = (identity, conn)
    return conn


def read_index(path: Path) -> StoredIndex | None:
    """The contents of an index file, or None if it is absent, stale or unreadable."""
    if not path.exists():
        return None
    try:
        with read_only(path) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("version") != str(INDEX_VERSION) or meta.get("python") != _PYTHON:
                return None
            (blob,) = conn.execute("SELECT data FROM snapshot").fetchone()
        rows, keys, label_keys = marshal.loads(blob)
        ocr = OcrReading.model_validate_json(meta["ocr"]) if "ocr" in meta else None
        clauses = list(map(Clause._make, rows))
        return StoredIndex(int(meta["pages"]), clauses, keys, label_keys, ocr)
    # ValueError covers pydantic's ValidationError for a damaged OCR note.
    except (sqlite3.DatabaseError, ValueError, EOFError, TypeError, IndexError, KeyError):
        return None  # a damaged cache file is rebuilt, never trusted

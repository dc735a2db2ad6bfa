"""The on-disk policy index: one SQLite file per PDF, named by the PDF's SHA-256.

An unchanged file is parsed once; an edited one has a new hash and is indexed afresh. The file
is written under a temporary name and renamed into place, so a crash or a failed parse never
leaves a half-written index that a later run would trust.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from claims_crew.policy.segment import Clause, ClauseKind

# Bump when the segmenter or the schema changes, so old indexes are rebuilt, not misread.
INDEX_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE clauses (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    pages TEXT NOT NULL,
    parent TEXT,
    text TEXT NOT NULL
);
CREATE VIRTUAL TABLE clause_fts USING fts5(
    title, text, content='clauses', content_rowid='seq', tokenize='porter unicode61'
);
"""


def index_path(cache_dir: Path, sha256: str) -> Path:
    return cache_dir / f"{sha256}.v{INDEX_VERSION}.sqlite"


def write_index(
    cache_dir: Path, sha256: str, source: str, page_count: int, clauses: Sequence[Clause]
) -> Path:
    """Write the index for one PDF atomically and return its path."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    final = index_path(cache_dir, sha256)
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
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
                ],
            )
            conn.executemany(
                "INSERT INTO clauses VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (seq, c.id, c.label, c.title, c.kind, json.dumps(c.pages), c.parent, c.text)
                    for seq, c in enumerate(clauses)
                ],
            )
            conn.execute(
                "INSERT INTO clause_fts(rowid, title, text) SELECT seq, title, text FROM clauses"
            )
            conn.commit()
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return final


def read_index(path: Path) -> tuple[int, list[Clause]] | None:
    """Page count and clauses from an index file, or None if it is absent or unreadable."""
    if not path.exists():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            rows = conn.execute(
                "SELECT id, label, title, kind, pages, parent, text FROM clauses ORDER BY seq"
            ).fetchall()
    except sqlite3.DatabaseError:
        return None  # a damaged cache file is rebuilt, never trusted
    if meta.get("version") != str(INDEX_VERSION):
        return None
    clauses = [
        Clause(
            id=r[0],
            label=r[1],
            title=r[2],
            kind=cast(ClauseKind, r[3]),
            pages=tuple(json.loads(r[4])),
            parent=r[5],
            text=r[6],
        )
        for r in rows
    ]
    return int(meta["pages"]), clauses
